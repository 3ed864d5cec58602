import ApphostGuestRuntime
import ApphostModel
import CApphost

/// What a guest's `apphost_entry` declares, as plain values and not yet checked: the C guest
/// runtime reads it from the library it mapped (`ahr_raw_descriptor`), in the host for in-process
/// guests, in the worker process otherwise, which sends it in LOADED. Both hand it to
/// `DescriptorValidator`, so a guest is judged the same either way (CONTRACT X1).
package struct RawGuestEntry: Sendable, Equatable {
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
    /// What `ahr_load` read from a mapped entry, member for member what a worker sends in LOADED.
    package init(_ raw: ahr_raw_descriptor) {
        func bytes(_ text: ahr_text) -> [UInt8]? {
            text.bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: text.length)) }
        }
        let descriptor = RawGuestDescriptor(
            structSize: raw.struct_size, id: bytes(raw.id), name: bytes(raw.name), version: bytes(raw.version),
            vendor: bytes(raw.vendor), description: bytes(raw.description), capabilities: raw.capabilities)
        self.init(
            abiVersion: ABIVersion(
                major: raw.abi_version.major, minor: raw.abi_version.minor, revision: raw.abi_version.revision),
            descriptor: raw.has_descriptor ? descriptor : nil, hasInit: raw.has_init, hasDeinit: raw.has_deinit,
            hasQuery: raw.has_query)
    }
}
