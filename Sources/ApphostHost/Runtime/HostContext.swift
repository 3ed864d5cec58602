import CApphost
import Foundation
import Synchronization

/// What the host functions of one guest work on: its state mirror, its data directory and where
/// its events go. The C functions reach it only through `LiveHostContexts`.
final class HostContext: @unchecked Sendable {
    // Immutable. `dataDirectory` lives as long as the context, which its runtime keeps until the
    // guest's deinit has returned, as host.h promises.
    let mirror: GuestStateMirror
    let dataDirectory: UnsafeMutablePointer<CChar>
    let emit: @Sendable (GuestEvent) -> Void

    init(mirror: GuestStateMirror, dataDirectory: String, emit: @escaping @Sendable (GuestEvent) -> Void) {
        self.mirror = mirror
        self.dataDirectory = strdup(dataDirectory)
        self.emit = emit
    }

    deinit { free(dataDirectory) }
}

/// The `apphost_host_t` pointers handed out and not yet torn down, with their contexts. A host
/// function looks its `host` argument up here instead of dereferencing it, so a NULL, foreign or
/// stale host pointer gets an error code instead of a crash (CONTRACT X3).
enum LiveHostContexts {
    private static let contexts = Mutex<[UInt: HostContext]>([:])

    static func insert(_ context: HostContext, for host: UnsafePointer<apphost_host_t>) {
        contexts.withLock { $0[UInt(bitPattern: host)] = context }
    }

    static func remove(_ host: UnsafePointer<apphost_host_t>) {
        _ = contexts.withLock { $0.removeValue(forKey: UInt(bitPattern: host)) }
    }

    /// The context, retained for the caller's use even if the guest is torn down meanwhile.
    static func context(for host: UnsafePointer<apphost_host_t>?) -> HostContext? {
        guard let host else { return nil }
        return contexts.withLock { $0[UInt(bitPattern: host)] }
    }
}
