import CApphost

/// Turns a guest's entry into a `GuestDescriptor`, or names the first thing wrong with it
/// (CONTRACT X1): the host must never trust a descriptor it has not checked.
enum DescriptorValidator {
    struct Problem: Error {
        let what: String
    }

    /// The size of the 1.0 descriptor: up to its last 1.0 member. Later minors only append.
    static let minimumSize =
        MemoryLayout<apphost_guest_descriptor_t>.offset(of: \apphost_guest_descriptor_t.capabilities)!
        + MemoryLayout<UInt64>.size

    static func validate(_ entry: apphost_entry_t, abiVersion: ABIVersion) throws(Problem) -> GuestDescriptor {
        guard let pointer = entry.descriptor else { throw Problem(what: "descriptor is NULL") }
        let declaredSize = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard declaredSize >= minimumSize else {
            throw Problem(
                what: "struct_size is \(declaredSize), smaller than the 1.0 descriptor (\(minimumSize) bytes)")
        }
        let raw = SizedStructCopy.copy(
            UnsafeRawPointer(pointer), as: apphost_guest_descriptor_t.self, zeroed: apphost_guest_descriptor_t())

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
        guard entry.`init` != nil else { throw Problem(what: "init is NULL") }
        guard entry.query != nil else { throw Problem(what: "query is NULL") }

        return GuestDescriptor(
            id: id, name: name, version: version, vendor: vendor, summary: summary, capabilities: capabilities,
            abiVersion: abiVersion)
    }

    private static func requiredString(_ pointer: UnsafePointer<CChar>?, _ member: String) throws(Problem) -> String {
        guard let value = try optionalString(pointer, member) else { throw Problem(what: "\(member) is NULL") }
        guard !value.isEmpty else { throw Problem(what: "\(member) is empty") }
        return value
    }

    private static func optionalString(_ pointer: UnsafePointer<CChar>?, _ member: String) throws(Problem) -> String? {
        guard let pointer else { return nil }
        guard let value = String(validatingCString: pointer) else {
            throw Problem(what: "\(member) is not valid UTF-8")
        }
        return value
    }
}
