import ApphostCore
import ApphostGuestRuntime
import CApphost
import Dispatch
import Foundation

/// One guest loaded into the host process, run by the C guest runtime (ApphostGuestRuntime, as
/// in a worker process): the runtime, the guest's serial main queue "apphost.guest.<id>", where
/// `start`, `handle` and `stop` run one at a time, and the reporter that turns what the guest sends
/// the host into `GuestEvent`s.
final class InProcessRuntime: @unchecked Sendable {
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
        mainQueue = DispatchQueue(label: "apphost.guest.\(library.descriptor.id)")
        self.path = path
        self.dataDirectory = dataDirectory
        self.hostName = hostName
        self.hostVersion = hostVersion
        events = EventReporter(emit: onEvent)
    }

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
        return RuntimeCall.deliver(message, to: runtime)
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

/// The `ahr_reporter` of one in-process guest: its log, save_state, background and scenes calls,
/// already checked by the runtime, as `GuestEvent`s, handed on from the guest thread that made
/// them, in their order.
private final class EventReporter: Sendable {
    let emit: @Sendable (GuestEvent) -> Void

    init(emit: @escaping @Sendable (GuestEvent) -> Void) {
        self.emit = emit
    }

    /// The reporter, with this object as its unretained context: keep it until ahr_stop returns.
    /// Member by member, so that members added to `ahr_reporter` later start out NULL.
    var reporter: ahr_reporter {
        var reporter = ahr_reporter()
        reporter.context = Unmanaged.passUnretained(self).toOpaque()
        reporter.log = { context, level, utf8, length in
            guard let context, let level = GuestLogLevel(rawValue: level) else { return }
            // The runtime cut the message to APPHOST_LOG_MESSAGE_MAX_BYTES at a character
            // boundary; invalid UTF-8 is repaired here.
            let message = String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
            EventReporter.from(context).emit(.log(level, message))
        }
        reporter.save_state = { context, scene, bytes, length in
            guard let context else { return }
            let state = bytes.map { Data(bytes: $0, count: length) } ?? Data()
            EventReporter.from(context).emit(.saveSceneState(scene, state))
        }
        // The background extension's requests (B1 to B8); the runtime calls these under its
        // lock, so they reach the host in the order the guest made them.
        reporter.task_began = { context, task, utf8, length in
            guard let context else { return }
            let name = String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
            EventReporter.from(context).emit(.taskBegan(task, name: name))
        }
        reporter.task_ended = { context, task in
            guard let context else { return }
            EventReporter.from(context).emit(.taskEnded(task))
        }
        reporter.timer_scheduled = { context, timer, delay, interval in
            guard let context else { return }
            EventReporter.from(context).emit(
                .timerScheduled(
                    timer, delay: WireDuration.duration(delay),
                    interval: interval == 0 ? nil : WireDuration.duration(interval)))
        }
        reporter.timer_cancelled = { context, timer in
            guard let context else { return }
            EventReporter.from(context).emit(.timerCancelled(timer))
        }
        reporter.work_submitted = { context, work in
            guard let context else { return }
            EventReporter.from(context).emit(.workSubmitted(work))
        }
        // The scenes extension's requests (S9, S11, N1 to N3), checked by the runtime: those about
        // a scene come while it is connected. Enum values the core does not know are dropped.
        reporter.scene_requested = { context, activation, from, role, style, bytes, length in
            guard let context, let role = SceneRole(rawValue: role), let style = PresentationStyle(rawValue: style)
            else { return }
            let state = bytes.map { Data(bytes: $0, count: length) } ?? Data()
            EventReporter.from(context).emit(
                .sceneRequested(activation: activation, from: from, role: role, style: style, state: state))
        }
        reporter.session_activation_requested = { context, utf8, length, style in
            guard let context, let style = PresentationStyle(rawValue: style) else { return }
            EventReporter.from(context).emit(
                .sessionActivationRequested(sessionID: EventReporter.text(utf8, length), style: style))
        }
        reporter.loading_progress = { context, scene, value in
            guard let context, let progress = LoadingProgress(abiValue: value) else { return }
            EventReporter.from(context).emit(.loadingProgress(scene, progress))
        }
        reporter.modal_presented = { context, scene, modal, style, utf8, length in
            guard let context, let style = ModalStyle(rawValue: style) else { return }
            EventReporter.from(context).emit(
                .modalPresented(scene, modal, style: style, title: EventReporter.text(utf8, length)))
        }
        reporter.modal_dismissed = { context, scene, modal in
            guard let context else { return }
            EventReporter.from(context).emit(.modalDismissed(scene, modal))
        }
        reporter.notification_posted = { context, title, titleLength, body, bodyLength in
            guard let context else { return }
            EventReporter.from(context).emit(
                .notificationPosted(
                    title: EventReporter.text(title, titleLength), body: EventReporter.text(body, bodyLength)))
        }
        reporter.session_close_requested = { context, utf8, length in
            guard let context else { return }
            EventReporter.from(context).emit(.sessionCloseRequested(sessionID: EventReporter.text(utf8, length)))
        }
        return reporter
    }

    /// A guest's text as the runtime passes it on (cut at a character boundary, not checked),
    /// with invalid UTF-8 repaired, as log's.
    private static func text(_ utf8: UnsafePointer<CChar>?, _ length: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
    }

    private static func from(_ context: UnsafeMutableRawPointer) -> EventReporter {
        Unmanaged<EventReporter>.fromOpaque(context).takeUnretainedValue()
    }
}
