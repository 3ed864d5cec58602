import ApphostGuestRuntime
import ApphostLoading
import ApphostModel
import ApphostVocabulary
import CApphost
import Dispatch
import Foundation

/// One guest loaded into the host process, run by the C guest runtime (ApphostGuestRuntime, as
/// in a worker process): the runtime, the guest's serial main queue "apphost.guest.<id>", where
/// `start`, `handle` and `stop` run one at a time, and the reporter that turns what the guest sends
/// the host into `GuestEvent`s.
final class InProcessGuest: @unchecked Sendable {
    // `runtime` and `phase` are touched only on `mainQueue`; the rest is immutable. `events` is
    // the reporter's context: it lives as long as this object, which outlives the runtime.
    let descriptor: GuestDescriptor
    /// The guest's main queue, "apphost.guest.<id>": every callback runs there.
    let mainQueue: DispatchQueue
    let dataDirectory: String
    private let path: String
    private let hostName: String
    private let hostVersion: String
    private let events: EventReporter
    private var runtime: OpaquePointer?
    private var phase = Phase.loaded

    private enum Phase {
        case loaded
        case running
        case stopped
    }

    /// Takes over `library`, not started. `onEvent` gets what the guest sends the host, on
    /// whichever guest thread sent it, in the order it did.
    init(
        library: GuestLibrary.Loaded, path: String, dataDirectory: String, hostName: String, hostVersion: String,
        onEvent: @escaping @Sendable (GuestEvent) -> Void
    ) {
        runtime = library.runtime
        descriptor = library.descriptor
        mainQueue = DispatchQueue(label: "apphost.guest.\(library.descriptor.id)", target: Self.threads)
        self.path = path
        self.dataDirectory = dataDirectory
        self.hostName = hostName
        self.hostVersion = hostVersion
        events = EventReporter(emit: onEvent)
    }

    /// Where every in-process guest's main queue runs, and where guests load: Dispatch's
    /// non-overcommit pool for the default QoS, as many threads as cores, and one more each
    /// second while none of them can run (blocked). A serial queue with no target runs on the
    /// overcommit pool instead, which starts a thread whenever none is idle at the moment work
    /// arrives, up to 255: hops between the host queue and guests' queues grew it to 50 to 180
    /// threads, and any steady trickle of work afterwards kept them all (Dispatch wakes its idle
    /// threads in turn and lets one go only after 5 s unwoken; issue 19, point 3). The price: as
    /// many in-process guests as cores spinning in callbacks hold the others' callbacks until
    /// they return, where each had a thread of its own. The host queue keeps its own thread.
    static let threads = DispatchQueue.global()

    /// True between a successful `start` and `stop`.
    var isRunning: Bool {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        return phase == .running
    }

    /// Calls the guest's init, then takes its callbacks from query. On failure the guest is
    /// already unloaded: without deinit when init failed, as entry.h says; with it when init
    /// succeeded but the guest offers no app callbacks.
    func start() throws(LoadError) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        precondition(phase == .loaded, "start() once, before anything else")
        var status: Int32 = 0
        let result = ahr_start(runtime, dataDirectory, hostName, hostVersion, events.reporter, &status)
        switch result {
        case AHR_START_OK:
            phase = .running
        case AHR_START_NO_APP_CALLBACKS:
            stop()
            throw LoadError(path: path, cause: .noAppCallbacks)
        default:
            stop()
            throw LoadError(path: path, cause: .initFailed(status: status, name: StatusName.of(status)))
        }
    }

    /// Delivers one host-to-guest call; returns its status (APPHOST_OK for void and missing
    /// callbacks).
    func handle(_ message: GuestMessage) -> Int32 {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        guard phase == .running, let runtime else { return Int32(APPHOST_ERROR_INTERNAL.rawValue) }
        return RuntimeCall.with(message) { call in
            guard call.pointee.kind == AHR_CALL_AUDIO_STREAM else { return ahr_handle(runtime, call) }
            // The runtime takes the stream's descriptors: it gets copies, as a worker does.
            var copy = call.pointee
            let stream = call.pointee.audio_stream
            let (memfd, wake) = (
                fcntl(stream.audio_memfd, F_DUPFD_CLOEXEC, 0), fcntl(stream.audio_wake_fd, F_DUPFD_CLOEXEC, 0)
            )
            guard memfd >= 0, wake >= 0 else {
                if memfd >= 0 { close(memfd) }
                if wake >= 0 { close(wake) }
                return Int32(APPHOST_ERROR_OUT_OF_MEMORY.rawValue)
            }
            copy.audio_stream = ahr_call_audio_stream(audio_memfd: memfd, audio_wake_fd: wake)
            return ahr_handle(runtime, &copy)
        }
    }

    /// Calls deinit if init succeeded, withdraws the host interface and unloads the library.
    /// Idempotent.
    func stop() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        phase = .stopped
        guard let runtime else { return }
        self.runtime = nil
        ahr_stop(runtime)
    }
}

/// The `ahr_reporter` of one in-process guest: what the guest asks of the host, already checked by
/// the runtime, as `GuestEvent`s (`RuntimeReport`, as a worker's reports are), handed on from the
/// guest thread that made them, in their order.
private final class EventReporter: Sendable {
    let emit: @Sendable (GuestEvent) -> Void

    init(emit: @escaping @Sendable (GuestEvent) -> Void) {
        self.emit = emit
    }

    /// The reporter, with this object as its unretained context: keep it until ahr_stop returns.
    var reporter: ahr_reporter {
        ahr_reporter(
            context: Unmanaged.passUnretained(self).toOpaque(),
            report: { context, report in
                guard let context, let report, let event = RuntimeReport.event(of: report.pointee) else { return }
                Unmanaged<EventReporter>.fromOpaque(context).takeUnretainedValue().emit(event)
            })
    }
}
