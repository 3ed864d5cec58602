import ApphostChannels
import ApphostFreezing
import ApphostModel
import ApphostVocabulary
import Dispatch
import Foundation
import Logging
import Synchronization

/// `inspect --launch`: what `launch` would say of a guest, without a host. The guest is opened by
/// the opener launch uses (so loading, init and query are checked alike, and fail with the same
/// line), gets did_finish_launching as launch delivers it (in background, with no scene: A1), and
/// is closed: deinit runs and its worker exits. Its data directory is a temporary one, removed
/// afterwards, so that inspecting never touches a host's state. With process isolation the worker
/// runs as launch's do (CONTRACT X2): under a user of its own (a throwaway one, freed once the
/// worker is gone: a root inspect gives a plugin being vetted no root), in a cgroup of its own,
/// which is killed whole when it ends, with whatever the guest started.
enum LaunchCheck {
    /// The descriptor of a guest that launched; throws the one line launch would print.
    static func run(
        path: String, isolation: IsolationOption, timeout: Duration, sandbox: SandboxOption = .auto
    ) throws -> GuestDescriptor {
        // A worker that dies while we write to it must not take inspect down with it.
        signal(SIGPIPE, SIG_IGN)
        let opener: any GuestOpener
        switch isolation {
        case .none:
            opener = InProcessOpener(hostName: "apphost inspect")
        case .process:
            let worker = try WorkerExecutable.locateForCLI()
            // Errors only, on stderr: stdout is the report's, and the error line the CLI's.
            var logger = Logger(label: "apphost.inspect") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .error
            // Nothing is suspended here, but the freezer's cgroup is what ends everything the
            // guest started, wherever it went (setsid), when its worker ends.
            var workerOpener = WorkerOpener(
                workerPath: worker, freezer: Freezers.best(logger: logger), hostName: "apphost inspect",
                loadTimeout: timeout, users: try WorkerUsers.forThisHostForCLI(logger: logger))
            workerOpener.throwawayUsers = true
            // Contained as a host would contain it (CONTRACT X6).
            workerOpener.containers = try sandbox.containers(workerPath: worker, logger: logger)
            opener = workerOpener
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let queue = DispatchQueue(label: "apphost.inspect")
        let bounded = isolation == .process

        // Loading, init and query. The worker opener gives them `timeout`; in this process
        // nothing can stop them, so there is no limit (validation refuses --timeout there).
        let opening = Outcome<Result<OpenedGuest, LoadError>>()
        opener.open(path: path, guestsDirectory: directory, hostQueue: queue, onEvent: { _ in }) { opening.set($0) }
        let guest: OpenedGuest
        // The worker opener answers within `timeout`; the margin is only against a bug of ours.
        switch opening.wait(for: bounded ? timeout + .seconds(15) : nil) {
        case .success(let opened)?: guest = opened
        case .failure(let error)?: throw CLIFailure(error)
        case nil: throw CLIFailure("\(path): timed out: loading and init did not finish")
        }

        let launching = Outcome<GuestReply>()
        guest.channel.send(GuestMessage(call: .didFinishLaunching, appState: .background)) { launching.set($0) }
        var failure: String?
        switch launching.wait(for: bounded ? timeout : nil) {
        case .success(0)?:
            break
        case .success(let status)?:
            failure = "\(path): launch failed: did_finish_launching returned \(status) (\(StatusName.of(status)))"
        case .failure(let reason)?:
            failure = "\(path): launch failed: did_finish_launching: \(reason)"
        case nil:
            failure = "\(path): timed out: did_finish_launching did not finish within \(timeout.secondsText)"
            let stopped = Outcome<Result<Void, ChannelFailure>>()
            guest.channel.forceStop(freezing: false) { stopped.set($0) }
            _ = stopped.wait(for: .seconds(5))
        }
        // deinit, and the worker's exit; the worker channel gives it 5 s, then kills it.
        let closed = Outcome<Void>()
        guest.channel.close { closed.set(()) }
        _ = closed.wait(for: bounded ? .seconds(10) : nil)
        if let failure { throw CLIFailure(failure) }
        return guest.descriptor
    }

    private static func temporaryDirectory() throws(CLIFailure) -> String {
        var template = Array((NSTemporaryDirectory() + "/apphost-inspect-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CLIFailure("cannot make a temporary data directory: \(String(cString: strerror(errno)))")
        }
        return String(cString: created)
    }
}

/// A value another thread delivers once, and a wait for it.
private final class Outcome<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let delivered = DispatchSemaphore(value: 0)

    func set(_ newValue: Value) {
        value.withLock { $0 = newValue }
        delivered.signal()
    }

    /// The value, or nil when `limit` passed first; nil `limit`: wait as long as it takes.
    func wait(for limit: Duration?) -> Value? {
        let deadline: DispatchTime =
            limit.map { .now() + .nanoseconds(Int(min($0.timeInterval * 1e9, 9e18))) } ?? .distantFuture
        guard delivered.wait(timeout: deadline) == .success else { return nil }
        return value.withLock { $0 }
    }
}
