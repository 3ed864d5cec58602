import CApphost
import Glibc

/// What a guest's `apphost_entry` declares, as plain values and not yet checked: the in-process
/// loader reads it from the library it mapped, a worker process sends it in LOADED. Both hand it
/// to `DescriptorValidator`, so a guest is judged the same either way (CONTRACT X1).
struct RawGuestEntry: Sendable, Equatable {
    var abiVersion: ABIVersion
    /// Nil when the entry's descriptor pointer is NULL.
    var descriptor: RawGuestDescriptor?
    var hasInit: Bool
    var hasDeinit: Bool
    var hasQuery: Bool

    init(
        abiVersion: ABIVersion, descriptor: RawGuestDescriptor?, hasInit: Bool, hasDeinit: Bool, hasQuery: Bool
    ) {
        self.abiVersion = abiVersion
        self.descriptor = descriptor
        self.hasInit = hasInit
        self.hasDeinit = hasDeinit
        self.hasQuery = hasQuery
    }
}

/// `apphost_guest_descriptor_t` as plain values. A string is its bytes up to the NUL, not yet
/// known to be UTF-8; nil for a NULL pointer.
struct RawGuestDescriptor: Sendable, Equatable {
    var structSize: UInt32
    var id: [UInt8]?
    var name: [UInt8]?
    var version: [UInt8]?
    var vendor: [UInt8]?
    var description: [UInt8]?
    var capabilities: UInt64

    init(
        structSize: UInt32, id: [UInt8]?, name: [UInt8]?, version: [UInt8]?, vendor: [UInt8]?,
        description: [UInt8]?, capabilities: UInt64
    ) {
        self.structSize = structSize
        self.id = id
        self.name = name
        self.version = version
        self.vendor = vendor
        self.description = description
        self.capabilities = capabilities
    }
}

extension RawGuestEntry {
    /// Reads a mapped entry. The descriptor's members are read only when its struct_size covers
    /// the 1.0 descriptor; a smaller one is refused on its size before any member matters.
    init(_ entry: apphost_entry_t, abiVersion: ABIVersion) {
        self.init(
            abiVersion: abiVersion, descriptor: entry.descriptor.map(RawGuestDescriptor.init),
            hasInit: entry.`init` != nil, hasDeinit: entry.deinit != nil, hasQuery: entry.query != nil)
    }
}

extension RawGuestDescriptor {
    init(_ pointer: UnsafePointer<apphost_guest_descriptor_t>) {
        let declaredSize = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard declaredSize >= DescriptorValidator.minimumSize else {
            self.init(
                structSize: declaredSize, id: nil, name: nil, version: nil, vendor: nil, description: nil,
                capabilities: 0)
            return
        }
        let raw = SizedStructCopy.copy(
            UnsafeRawPointer(pointer), as: apphost_guest_descriptor_t.self, zeroed: apphost_guest_descriptor_t())
        func bytes(_ string: UnsafePointer<CChar>?) -> [UInt8]? {
            string.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
        self.init(
            structSize: declaredSize, id: bytes(raw.id), name: bytes(raw.name), version: bytes(raw.version),
            vendor: bytes(raw.vendor), description: bytes(raw.description), capabilities: raw.capabilities)
    }
}
