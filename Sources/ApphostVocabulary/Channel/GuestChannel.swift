import ApphostModel

/// The only way the host core reaches a guest. Every call is a message that could cross a
/// process boundary; the in-process channel and the worker-process channel implement it, and
/// the core cannot tell them apart.
public protocol GuestChannel: AnyObject, Sendable {
    /// Sends `message` to the guest. The guest handles messages one at a time, on its main
    /// queue, in the order they were sent. `reply` runs exactly once, on the host queue the
    /// channel was opened with. Never blocks the caller.
    func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void)

    /// Sends several messages as `send` would, one after another, at once: a worker channel
    /// writes them with one system call, so that the guest wakes once for all of them.
    func send(all messages: [(GuestMessage, @Sendable (GuestReply) -> Void)])

    /// Calls the guest's deinit after every message sent so far, then unloads it. `completion`
    /// runs once, on the host queue, when the guest is gone. Messages sent later fail with
    /// `.closed`. A suspended guest is not woken: its worker process is killed, or in-process its
    /// deinit runs without any further callback (CONTRACT A3).
    func close(completion: @escaping @Sendable () -> Void)

    /// Stops the guest's code once every message sent so far has been answered (CONTRACT B7): a
    /// worker process is frozen, whole; an in-process guest simply gets no more calls (its own
    /// threads go on). Messages sent while suspended wait, in order, and never block the caller.
    /// `completion` runs on the host queue once the suspension is confirmed, or with why not.
    func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void)

    /// Lets a suspended guest run again, then delivers the messages that waited, in order.
    /// `completion` runs on the host queue once the guest runs.
    func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void)

    /// Stops a guest that no longer answers; see the default implementation below.
    func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void)

    /// The process the guest runs in when that is not the host's (a worker), for operators; nil
    /// by default.
    var processID: Int32? { get }

    /// The parts of its container the guest's worker enforces (X6); nil where the guest runs in
    /// the host's process, the default.
    var sandboxParts: [SandboxPart]? { get }

    /// The CPU time the guest's audio thread `thread` (its id as the runtime reported it) has
    /// used so far, or nil where it cannot be read (no such thread of the guest's); nil by default.
    func audioThreadCPUTime(_ thread: Int32) -> Duration?

    /// Takes real-time priority away from the guest's audio thread `thread` for good: ordinary
    /// scheduling, and, in a worker, no way to ask for real-time again (issue 34, point 9). True
    /// when done; false by default.
    func demoteAudioThread(_ thread: Int32) -> Bool
}

extension GuestChannel {
    public var processID: Int32? { nil }

    public var sandboxParts: [SandboxPart]? { nil }

    public func audioThreadCPUTime(_ thread: Int32) -> Duration? { nil }

    public func demoteAudioThread(_ thread: Int32) -> Bool { false }

    public func send(all messages: [(GuestMessage, @Sendable (GuestReply) -> Void)]) {
        for (message, reply) in messages { send(message, reply: reply) }
    }

    /// Stops a guest that no longer answers (CONTRACT B5), at once and whatever it is doing: its
    /// worker process is frozen where it stands (`freezing`) or killed. Killing ends like a crash:
    /// pending replies fail and the channel reports `.died`. Only a worker process can be stopped
    /// this way; this default, which in-process channels keep, says so.
    public func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        completion(
            .failure(
                .failed(
                    "a guest in the host's process cannot be \(freezing ? "frozen" : "killed") (use --isolation process)"
                )))
    }
}

/// A guest that has been loaded, validated and initialised.
public struct OpenedGuest: Sendable {
    public var descriptor: GuestDescriptor
    public var channel: any GuestChannel

    public init(descriptor: GuestDescriptor, channel: any GuestChannel) {
        self.descriptor = descriptor
        self.channel = channel
    }
}

/// Loads guests and opens channels to them: in-process, or (later) in a worker process.
public protocol GuestOpener: Sendable {
    /// Loads the guest at `path`, validates it, gives it its data directory under
    /// `guestsDirectory/<guest id>` and calls its init. `onEvent` receives what the guest sends
    /// the host (logs, saved state), on `hostQueue`. `completion` runs once, on `hostQueue`.
    func open(
        path: String,
        guestsDirectory: String,
        hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    )

    /// Makes `guestsDirectory` ready before any guest opens, when the host starts (it holds the
    /// data directory's lock): what a host that was killed left is put right. Never fails.
    func prepare(guestsDirectory: String)

    /// From now on, tells `sink` the CPU time each worker it opened used in all, once it has
    /// exited (before the host hears of its end), by the guest it ran: what it used after the
    /// metrics last read it would otherwise be lost with it (CONTRACT O2). Nothing for an opener
    /// without workers.
    func reportWorkerExits(to sink: @escaping @Sendable (_ guest: String, _ pid: Int32, _ cpuSeconds: Double) -> Void)
}

extension GuestOpener {
    public func prepare(guestsDirectory: String) {}
    public func reportWorkerExits(
        to sink: @escaping @Sendable (_ guest: String, _ pid: Int32, _ cpuSeconds: Double) -> Void
    ) {}
}
