import ApphostCore
import Dispatch
import Foundation

/// One call a fake guest received, in the global order all fake guests share.
struct ReceivedCall: Equatable, CustomStringConvertible {
    var guest: String
    var message: GuestMessage
    var description: String {
        let detail: String =
            switch message.call {
            case .expireTask(let id), .fireTimer(let id), .runWork(let id): "#\(id)"
            case .backgroundTime(let time): "=" + (time.map { "\($0)" } ?? "unlimited")
            case .sceneSize(let scene, let size): "@\(scene)=\(size.width)x\(size.height)/\(size.sizeClass)"
            case .didDiscard(let session): "#" + session.prefix(8)
            case .notificationLimit(let count, let window): "=\(count)/\(window)"
            case .saveStatus(let scene, let failed): "@\(scene)=\(failed ? "failed" : "works")"
            default: message.call.scene.map { "@\($0)" } ?? ""
            }
        return "\(guest):\(message.call.callbackName)" + detail
    }
}

/// A scripted guest behind a fake channel: it records every call and answers on the host queue,
/// as a real channel does, with the status its script gives.
final class FakeGuest: @unchecked Sendable {
    // Touched only on the host queue (through the channel) or by the test while the queue is idle.
    let descriptor: GuestDescriptor
    var launchStatus: Int32 = 0
    /// A callback name whose delivery "crashes" the guest, as a dead worker would.
    var crashOn: String?
    var opens = 0
    var closes = 0
    var suspensions = 0
    var resumptions = 0
    /// Makes the channel refuse to suspend, as a freezer that fails would.
    var freezeFails = false
    /// What forceStop was asked to do, in order ("kill", "freeze").
    var forceStops: [String] = []
    /// Makes forceStop fail, as an in-process channel does.
    var unstoppable = false
    /// Answers should_dismiss_modal with "keep it" (N3).
    var keepsModals = false
    /// Keeps replies back, as a guest busy in a callback would.
    var holdReplies = false
    var heldReplies: [() -> Void] = []
    var onEvent: (@Sendable (GuestEvent) -> Void)?
    /// Sent by a guest thread right after init, before the channel is handed over.
    var eventsAfterInit: [GuestEvent] = []
    /// The activation of the last user action it got (S9), as its runtime would keep it.
    var lastActivation: ActivationToken = 0

    /// A fake declares several scenes unless a test says otherwise (S13).
    init(id: String, capabilities: GuestDescriptor.Capabilities = [.multipleScenes]) {
        descriptor = GuestDescriptor(
            id: id, name: id.components(separatedBy: ".").last ?? id, version: "1.0", capabilities: capabilities)
    }

    /// Sends a guest-to-host event as the guest's runtime would.
    func emit(_ event: GuestEvent) { onEvent?(event) }
}

/// The shared log of calls, in the order the guests received them.
final class CallLog: @unchecked Sendable {
    // Appended to on the host queue; read by the test after `settle`.
    /// The calls that run guest code (callbacks, expiration handlers, timers, async work), sizes
    /// aside.
    var calls: [ReceivedCall] = []
    /// The sizes scenes were told (did_change_size, S11).
    var sizes: [ReceivedCall] = []
    /// Every message in order, with the ones that only inform the runtime (background time).
    var messages: [ReceivedCall] = []
    func sizeNames(_ guest: String? = nil) -> [String] {
        sizes.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
    func names(_ guest: String? = nil) -> [String] {
        calls.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
    /// Every message to `guest`, background-time updates included.
    func allNames(_ guest: String? = nil) -> [String] {
        messages.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
}

final class FakeChannel: GuestChannel, @unchecked Sendable {
    // Confined to the host queue.
    let guest: FakeGuest
    let log: CallLog
    let queue: DispatchQueue
    var closed = false

    init(guest: FakeGuest, log: CallLog, queue: DispatchQueue) {
        self.guest = guest
        self.log = log
        self.queue = queue
    }

    func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void) {
        guard !closed else { return queue.async { reply(.failure(.closed)) } }
        let received = ReceivedCall(guest: guest.descriptor.id, message: message)
        if case .performAction(_, _, _, _, let token) = message.call { guest.lastActivation = token }
        log.messages.append(received)
        if case .sceneSize = message.call {
            // Sizes are in `messages` and `sizes`, so that `calls` reads as the lifecycle orders.
            log.sizes.append(received)
        } else if message.call.runsGuestCode {
            log.calls.append(received)
        }
        let result: GuestReply
        if guest.crashOn == message.call.callbackName {
            closed = true
            result = .failure(.crashed("SIGSEGV"))
        } else if message.call == .didFinishLaunching {
            result = .success(guest.launchStatus)
        } else if case .shouldDismissModal = message.call {
            result = .success(guest.keepsModals ? 0 : 1)
        } else {
            result = .success(0)
        }
        if guest.holdReplies {
            guest.heldReplies.append({ reply(result) })
        } else {
            queue.async { reply(result) }
        }
    }

    func close(completion: @escaping @Sendable () -> Void) {
        closed = true
        guest.closes += 1
        queue.async { completion() }
    }

    func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.suspensions += 1
        let result: Result<Void, ChannelFailure> =
            guest.freezeFails ? .failure(.failed("freezer refused")) : .success(())
        queue.async { completion(result) }
    }

    func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.resumptions += 1
        queue.async { completion(.success(())) }
    }

    /// As a worker channel: a kill ends in the guest's death; a freeze just succeeds.
    func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.forceStops.append(freezing ? "freeze" : "kill")
        guard !guest.unstoppable else {
            return queue.async { completion(.failure(.failed("cannot be killed here"))) }
        }
        queue.async { [guest] in
            completion(.success(()))
            if !freezing { guest.emit(.died("killed by SIGKILL")) }
        }
    }
}

/// Opens fake guests by "path" (the guest id), or fails with a given load error.
final class FakeOpener: GuestOpener, @unchecked Sendable {
    // Configured by the test before use; read on the host queue.
    var guests: [String: FakeGuest] = [:]
    let log = CallLog()

    func add(_ id: String, capabilities: GuestDescriptor.Capabilities = [.multipleScenes]) -> FakeGuest {
        let guest = FakeGuest(id: id, capabilities: capabilities)
        guests[id] = guest
        return guest
    }

    func open(
        path: String, guestsDirectory: String, hostQueue: DispatchQueue,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        guard let guest = guests[path] else {
            return hostQueue.async { completion(.failure(LoadError(path: path, cause: .notELF))) }
        }
        guest.opens += 1
        guest.onEvent = onEvent
        for event in guest.eventsAfterInit { onEvent(event) }
        let channel = FakeChannel(guest: guest, log: log, queue: hostQueue)
        hostQueue.async { completion(.success(OpenedGuest(descriptor: guest.descriptor, channel: channel))) }
    }
}

/// A host core on a private queue, with fake guests, a manual clock and a recorded event stream.
final class CoreHarness: @unchecked Sendable {
    // The core and the clock are driven only inside `queue.sync`.
    let queue = DispatchQueue(label: "test.host")
    let opener = FakeOpener()
    let clock = ManualClock()
    let events = EventRecorder()
    private(set) var core: HostCore!

    init(
        restartPolicy: RestartPolicy = .never, watchdog: WatchdogPolicy = WatchdogPolicy(),
        background: BackgroundPolicy = BackgroundPolicy(), memoryLimit: UInt64? = nil, store: (any SessionStore)? = nil,
        backgroundSceneLimit: Int? = nil, scenes: ScenePolicy = ScenePolicy()
    ) {
        let events = events
        core = HostCore(
            opener: opener, clock: clock, hostQueue: queue, guestsDirectory: "/nonexistent",
            restartPolicy: restartPolicy, watchdog: watchdog, background: background, memoryLimit: memoryLimit,
            store: store, backgroundSceneLimit: backgroundSceneLimit, scenes: scenes, emit: { events.append($0) })
    }

    /// Moves the manual clock on, on the host queue, and lets what fell due run. Time stops at
    /// each action that falls due while the replies and events it caused arrive, as they would
    /// in microseconds on a real host: a guest that answers takes no time.
    func advance(by delay: Duration) {
        let target = queue.sync { clock.uptime() } + delay
        while let next = queue.sync(execute: { clock.nextDeadline }), next <= target {
            run { _ in clock.advance(by: next - clock.uptime()) }
        }
        run { _ in clock.advance(by: target - clock.uptime()) }
    }

    /// Runs `body` on the host queue, then lets every queued reply and completion run.
    @discardableResult
    func run<T>(_ body: (HostCore) throws -> T) rethrows -> T {
        let result = try queue.sync { try body(core) }
        settle()
        return result
    }

    /// Drains the host queue until it stays empty: replies may queue further work.
    func settle() {
        for _ in 0..<50 { queue.sync {} }
    }

    func status() -> HostStatus { queue.sync { core.status() } }

    func guest(_ id: String) -> GuestStatus? { status().guests.first { $0.id == id } }

    var calls: CallLog { opener.log }
}

final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [HostEvent] = []
    func append(_ event: HostEvent) { lock.withLock { stored.append(event) } }
    var all: [HostEvent] { lock.withLock { stored } }
    func of(_ kind: HostEvent.Kind, guest: String? = nil) -> [HostEvent] {
        all.filter { $0.kind == kind && (guest == nil || $0.guest == guest) }
    }
}
