import ApphostCore
import ApphostModel
import CApphost

/// Turns a guest's entry into a `GuestDescriptor`, or names the first thing wrong with it
/// (CONTRACT X1): the host must never trust a descriptor it has not checked. It judges plain
/// values (`RawGuestEntry`), whether the guest was mapped into the host or into a worker.
package enum DescriptorValidator {
    struct Problem: Error {
        let what: String
    }

    /// The size of the 1.0 descriptor: up to its last 1.0 member. Later minors only append.
    static let minimumSize =
        MemoryLayout<apphost_guest_descriptor_t>.offset(of: \apphost_guest_descriptor_t.capabilities)!
        + MemoryLayout<UInt64>.size

    /// The entry's descriptor, or the load error that names what is wrong: first the ABI version,
    /// since a guest of another version may mean something else by the rest.
    package static func descriptor(of entry: RawGuestEntry, path: String) throws(LoadError) -> GuestDescriptor {
        guard ABIVersion.current.canLoad(guest: entry.abiVersion) else {
            throw LoadError(path: path, cause: .unsupportedABIVersion(guest: entry.abiVersion, host: .current))
        }
        do {
            return try validate(entry)
        } catch {
            throw LoadError(path: path, cause: .invalidDescriptor(error.what))
        }
    }

    static func validate(_ entry: RawGuestEntry) throws(Problem) -> GuestDescriptor {
        guard let raw = entry.descriptor else { throw Problem(what: "descriptor is NULL") }
        guard raw.structSize >= minimumSize else {
            throw Problem(
                what: "struct_size is \(raw.structSize), smaller than the 1.0 descriptor (\(minimumSize) bytes)")
        }

        let id = try requiredString(raw.id, "id")
        guard GuestDescriptor.isValidID(id) else {
            throw Problem(
                what: "id \"\(id)\" is not a reverse-DNS identifier (two or more labels of ASCII letters, digits "
                    + "and '-', such as org.example.notes)")
        }
        let name = try requiredString(raw.name, "name")
        let version = try requiredString(raw.version, "version")
        let vendor = try optionalString(raw.vendor, "vendor")
        let summary = try optionalString(raw.description, "description")

        let capabilities = GuestDescriptor.Capabilities(rawValue: raw.capabilities)
        let unknown = capabilities.subtracting(.known)
        guard unknown.isEmpty else {
            throw Problem(what: "unknown capability bits 0x\(String(unknown.rawValue, radix: 16))")
        }
        guard entry.hasInit else { throw Problem(what: "init is NULL") }
        guard entry.hasQuery else { throw Problem(what: "query is NULL") }

        return GuestDescriptor(
            id: id, name: name, version: version, vendor: vendor, summary: summary, capabilities: capabilities,
            abiVersion: entry.abiVersion)
    }

    private static func requiredString(_ bytes: [UInt8]?, _ member: String) throws(Problem) -> String {
        guard let value = try optionalString(bytes, member) else { throw Problem(what: "\(member) is NULL") }
        guard !value.isEmpty else { throw Problem(what: "\(member) is empty") }
        return value
    }

    private static func optionalString(_ bytes: [UInt8]?, _ member: String) throws(Problem) -> String? {
        guard let bytes else { return nil }
        guard let value = String(validating: bytes, as: UTF8.self) else {
            throw Problem(what: "\(member) is not valid UTF-8")
        }
        return value
    }
}

extension LoadError.Cause {
    /// A guest whose init succeeded but whose query offered no app callbacks (CONTRACT X1).
    package static let noAppCallbacks = LoadError.Cause.invalidDescriptor(
        "query(\"\(APPHOST_GUEST_APP_CALLBACKS_ID)\") returned NULL: every guest must provide app callbacks")
}
