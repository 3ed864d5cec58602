import ApphostLimits
import ApphostLoading
import ApphostModel
import ApphostVocabulary
import ApphostWire
import CApphost
import Dispatch
import Glibc

/// One worker from its spawn until the guest in it runs: HELLO, LOAD and LOADED, START and
/// STARTED, the host waiting for each answer in turn on a background thread, all within one
/// deadline. Each step either succeeds or throws the `LoadError` to report; a step that throws
/// because the worker died, hung or broke the protocol has already killed and reaped it.
final class WorkerHandshake {
    /// The path as the caller gave it, which errors name.
    let path: String
    let process: WorkerProcess
    /// The worker's standard output and standard error, read as the guest's logs; nil when they
    /// are the host's.
    let output: WorkerOutput?
    private var socket: WireSocket
    private let timeout: Duration
    private let deadline: ContinuousClock.Instant
    /// Which answer each step waits for, and what it means.
    private var conversation: WorkerHandshakeState
    private var ended = false

    private init(
        path: String, process: WorkerProcess, output: WorkerOutput?, socket: Int32, timeout: Duration, ownUser: Bool
    ) {
        self.path = path
        self.process = process
        self.output = output
        conversation = WorkerHandshakeState(path: path, ownUser: ownUser)
        self.socket = WireSocket(descriptor: socket)
        self.timeout = timeout
        deadline = .now + timeout
    }

    /// With `capture`, what the worker writes to its standard output and standard error goes to
    /// its line handler, line by line, on the host queue (`WorkerOutput`); without, they are the host's.
    /// With `user`, the worker takes that user at LOAD; it enforces its `container` then.
    static func spawn(
        executable: String, path: String, timeout: Duration,
        capture: (hostQueue: any HostExecutor, handleLine: WorkerOutput.LineHandler)? = nil, user: WorkerUser? = nil,
        container: WorkerContainer
    ) throws(LoadError) -> WorkerHandshake {
        do {
            let (process, socket, pipes) = try WorkerProcess.spawn(
                executable: executable, capturingOutput: capture != nil, user: user, container: container)
            var output: WorkerOutput?
            if let pipes, let capture {
                output = WorkerOutput(
                    standardOutput: pipes.standardOutput, standardError: pipes.standardError,
                    hostQueue: capture.hostQueue, handleLine: capture.handleLine)
            }
            return WorkerHandshake(
                path: path, process: process, output: output, socket: socket, timeout: timeout,
                ownUser: user != nil)
        } catch {
            throw LoadError(path: path, cause: .workerFailed(error.description))
        }
    }

    /// HELLO: the worker runs and speaks this host's protocol version. It waits for LOAD, so
    /// that its descriptor limit is set back here before any of the guest's code runs.
    func awaitHello() throws(LoadError) {
        let message = try receive(.hello)
        if case .hello = message { HostDescriptorLimit.restore(in: process.pid) }
        _ = try carryOut(conversation.received(message))
    }

    /// LOAD: the worker takes its own user, if it has one, then dlopens the library, which runs
    /// its constructors, and reads its entry; the host validates what it declares (CONTRACT X1).
    func load(canonicalPath: String, guestsDirectory: String, hostName: String, hostVersion: String)
        throws(LoadError) -> GuestDescriptor
    {
        try send(
            .load(path: canonicalPath, guestsDirectory: guestsDirectory, hostName: hostName, hostVersion: hostVersion),
            .load)
        conversation.sentLoad(canonicalPath: canonicalPath)
        let answer = try receive(.load)
        // What the library's constructors printed is named by its path: delivered before the
        // caller identifies the guest.
        output?.drain(finishingLines: false)
        guard case .loaded(let descriptor) = try carryOut(conversation.received(answer)) else {
            abandon()
            throw conversation.unexpected
        }
        return descriptor
    }

    /// START: the worker calls init with a host interface that serves `dataDirectory`, then
    /// takes the guest's callbacks. What the guest logs meanwhile goes to `forward`, in order.
    func start(dataDirectory: String, forward: @escaping (GuestEvent) -> Void) throws(LoadError) {
        try send(.start(dataDirectory: dataDirectory), .start)
        conversation.sentStart()
        while true {
            switch try carryOut(conversation.received(try receive(.start))) {
            case .forward(let event): forward(event)
            case .started: return
            default:
                abandon()
                throw conversation.unexpected
            }
        }
    }

    /// Stops or kills the worker as a failed step asks, and throws its failure; any other
    /// decision is the caller's.
    private func carryOut(_ decision: WorkerHandshakeState.Decision) throws(LoadError)
        -> WorkerHandshakeState.Decision
    {
        switch decision {
        case .stop(let error):
            stop()
            throw error
        case .abandon(let error):
            abandon()
            throw error
        default:
            return decision
        }
    }

    /// The socket and the bytes already read past the last answer, for the channel that takes
    /// over; the handshake no longer owns them.
    func handOver() -> WireSocket {
        ended = true
        return socket
    }

    /// Asks the worker to unload the guest (deinit only if init succeeded) and exit, waits for it
    /// (briefly, and never past the deadline by much), then reaps it.
    func stop() {
        guard !ended else { return }
        ended = true
        let patience = max(deadline, .now + .seconds(1))
        if (try? socket.write(HostToWorkerMessage.stop.encoded, deadline: patience)) != nil {
            // Whatever the guest logs while it unloads is dropped: nobody listens any more.
            while let message = try? socket.read(deadline: patience), message != .stopped {}
        }
        close(socket.descriptor)
        _ = process.waitForExit(killAfter: .seconds(1))
        output?.drain(finishingLines: true)
    }

    /// Kills the worker and reaps it; returns how it ended.
    @discardableResult
    func abandon() -> WorkerExit {
        guard !ended else { return process.waitForExit() }
        ended = true
        process.kill()
        close(socket.descriptor)
        let exit = process.waitForExit()
        output?.drain(finishingLines: true)
        return exit
    }

    // MARK: Steps

    private typealias Step = WorkerHandshakeState.Step

    private func send(_ message: HostToWorkerMessage, _ step: Step) throws(LoadError) {
        do {
            try socket.write(message.encoded, deadline: deadline)
        } catch {
            throw failure(error, during: step)
        }
    }

    /// The next message from the worker.
    private func receive(_ step: Step) throws(LoadError) -> WorkerToHostMessage {
        do {
            return try socket.read(deadline: deadline)
        } catch {
            throw failure(error, during: step)
        }
    }

    private func failure(_ failure: WireSocket.Failure, during step: Step) -> LoadError {
        switch failure {
        case .closed:
            // The worker is exiting: how it ends is the cause (a constructor that crashed, exit() in init).
            ended = true
            close(socket.descriptor)
            let exit = process.waitForExit(killAfter: .seconds(2))
            // What it printed last (a message before an abort) comes before the failure.
            output?.drain(finishingLines: true)
            return LoadError(path: path, cause: .guestCrashed(exit.description))
        case .timedOut:
            abandon()
            return LoadError(path: path, cause: .timedOut("\(step) did not finish within \(timeout.secondsText)"))
        case .protocolError(let error):
            abandon()
            return LoadError(path: path, cause: .workerFailed("protocol error during \(step): \(error)"))
        }
    }
}
