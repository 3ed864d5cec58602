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
    /// ABI 1.6: the actions table, nil when the descriptor has none.
    var actions: RawActionTable?
}

/// `apphost_guest_actions_t` as plain values (`ahr_raw_descriptor`'s actions members): the
/// actions the runtime read, at most APPHOST_ACTIONS_MAX whatever `count` declares.
struct RawActionTable: Sendable, Equatable {
    var structSize: UInt32
    var actionSize: UInt32
    var id: [UInt8]?
    var count: UInt32
    var actions: [RawAction]
}

/// `apphost_action_t` as plain values; its strings as the runtime kept them (cut one byte past
/// actions.h's limits).
struct RawAction: Sendable, Equatable {
    var name: [UInt8]?
    var arguments: [UInt8]?
    var result: [UInt8]?
    var description: [UInt8]?
    var flags: UInt64
    var hasFunction: Bool
}

extension RawGuestEntry {
    /// What `ahr_load` read from a mapped entry, member for member what a worker sends in LOADED.
    package init(_ raw: ahr_raw_descriptor) {
        func bytes(_ text: ahr_text) -> [UInt8]? {
            text.bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: text.length)) }
        }
        var actions: [RawAction] = []
        withUnsafeBytes(of: raw.actions) { buffer in
            for action in buffer.bindMemory(to: ahr_raw_action.self).prefix(Int(raw.actions_read)) {
                actions.append(
                    RawAction(
                        name: bytes(action.name), arguments: bytes(action.arguments), result: bytes(action.result),
                        description: bytes(action.description), flags: action.flags, hasFunction: action.has_function))
            }
        }
        let table = RawActionTable(
            structSize: raw.actions_struct_size, actionSize: raw.action_size, id: bytes(raw.actions_id),
            count: raw.action_count, actions: actions)
        let descriptor = RawGuestDescriptor(
            structSize: raw.struct_size, id: bytes(raw.id), name: bytes(raw.name), version: bytes(raw.version),
            vendor: bytes(raw.vendor), description: bytes(raw.description), capabilities: raw.capabilities,
            actions: raw.has_actions ? table : nil)
        self.init(
            abiVersion: ABIVersion(
                major: raw.abi_version.major, minor: raw.abi_version.minor, revision: raw.abi_version.revision),
            descriptor: raw.has_descriptor ? descriptor : nil, hasInit: raw.has_init, hasDeinit: raw.has_deinit,
            hasQuery: raw.has_query)
    }
}
