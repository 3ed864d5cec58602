import CApphost
import Dispatch
import Foundation

/// One loaded guest, seen from the guest's side: its library, the host interface its init got,
/// its serial main queue, its callbacks and a mirror of the states the host gave it. It knows
/// the host only through `GuestMessage`s in and `GuestEvent`s out, so that it can run in a worker
/// process as well as in the host.
///
/// `start`, `handle` and `stop` run on `mainQueue`, one at a time.
public final class GuestRuntime: @unchecked Sendable {
    // `callbacks` and `phase` are touched only on `mainQueue`; the rest is immutable, or
    // thread-safe by itself (the mirror, the host interface's live registration).
    public let descriptor: GuestDescriptor
    /// The guest's main queue, "apphost.guest.<id>": every callback runs there.
    public let mainQueue: DispatchQueue
    public let dataDirectory: String
    let library: LoadedGuestLibrary
    private let mirror = GuestStateMirror()
    private let context: HostContext
    private let hostInterface: HostInterface
    private var callbacks: GuestCallbacks?
    private var phase = Phase.loaded

    private enum Phase {
        case loaded
        case running
        case stopped
    }

    /// Loads and validates the guest at `path` (CONTRACT X1) and creates its data directory
    /// `guestsDirectory/<id>` (mode 0700), without running init. `onEvent` gets what the guest
    /// sends the host, on whichever guest thread sent it, in the order it did.
    public static func load(
        path: String, guestsDirectory: String, hostName: String, hostVersion: String,
        onEvent: @escaping @Sendable (GuestEvent) -> Void
    ) throws(LoadError) -> GuestRuntime {
        let library = try GuestLibrary.load(path: path)
        let directory: String
        do {
            directory = try GuestDataDirectory.create(in: guestsDirectory, id: library.descriptor.id)
        } catch {
            library.close()
            throw LoadError(path: path, cause: .dataDirectoryUnavailable(error.description))
        }
        return GuestRuntime(
            library: library, dataDirectory: directory, hostName: hostName, hostVersion: hostVersion, onEvent: onEvent)
    }

    init(
        library: LoadedGuestLibrary, dataDirectory: String, hostName: String, hostVersion: String,
        onEvent: @escaping @Sendable (GuestEvent) -> Void
    ) {
        self.library = library
        self.dataDirectory = dataDirectory
        descriptor = library.descriptor
        mainQueue = DispatchQueue(label: "apphost.guest.\(library.descriptor.id)")
        context = HostContext(mirror: mirror, dataDirectory: dataDirectory, emit: onEvent)
        hostInterface = HostInterface(context: context, hostName: hostName, hostVersion: hostVersion)
    }

    /// True between a successful `start` and `stop`.
    public var isRunning: Bool {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        return phase == .running
    }

    /// Calls the guest's init, then takes its callbacks from query. On failure the guest is
    /// already unloaded: without deinit when init failed, as entry.h says; with it when init
    /// succeeded but the guest offers no app callbacks.
    public func start() throws(LoadError) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        precondition(phase == .loaded, "start() once, before anything else")
        let status = library.entry.`init`!(hostInterface.pointer)
        guard status == StatusCode.ok else {
            unload()
            throw LoadError(
                path: library.path,
                cause: .initFailed(status: status, name: String(cString: apphost_status_name(status))))
        }
        guard let callbacks = GuestCallbacks(query: library.entry.query!) else {
            library.entry.deinit?()
            unload()
            throw LoadError(
                path: library.path,
                cause: .invalidDescriptor(
                    "query(\"\(APPHOST_GUEST_APP_CALLBACKS_ID)\") returned NULL: every guest must provide app callbacks"
                ))
        }
        self.callbacks = callbacks
        phase = .running
    }

    /// Delivers one host-to-guest call: updates the mirror, then runs the guest's callback.
    /// Returns the callback's status (APPHOST_OK for void and missing callbacks).
    public func handle(_ message: GuestMessage) -> Int32 {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        guard phase == .running, let callbacks else { return StatusCode.internal }
        mirror.willDeliver(message)
        let status = callbacks.invoke(message.call)
        mirror.didDeliver(message)
        return status
    }

    /// Calls deinit if init succeeded, withdraws the host interface and unloads the library.
    /// Idempotent.
    public func stop() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        if phase == .running { library.entry.deinit?() }
        unload()
    }

    private func unload() {
        guard phase != .stopped else { return }
        phase = .stopped
        callbacks = nil
        hostInterface.tearDown()
        library.close()
    }
}
