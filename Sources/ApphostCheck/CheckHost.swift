import ApphostControl
import ApphostModel
import ApphostPolicy
import ApphostService
import ApphostVocabulary
import Dispatch
import Foundation
import Logging
import Synchronization

/// One test's host (`apphost check`): a real `HostService` with a data directory of its own,
/// removed at the end, driven in this process through the control verbs an operator sends, so
/// that a test judges only what the guest does. A test's thread waits here; the host runs on its
/// own queue.
final class CheckHost: Sendable {
    let service: HostService
    let directory: String
    private let queue = DispatchQueue(label: "apphost.check.host")
    private let recorded = RecordedEvents()
    private let subscription: EventSubscription

    /// The events so far, bounded: a guest that floods its log cannot make the check keep more.
    private final class RecordedEvents: Sendable {
        static let kept = 20_000
        let events = Mutex<[HostEvent]>([])

        func append(_ event: HostEvent) {
            events.withLock { if $0.count < Self.kept { $0.append(event) } }
        }

        /// The first event after `mark` that `matches`, looked for where the events are: a test
        /// that polls copies none of them.
        func first(after mark: Int, where matches: (HostEvent) -> Bool) -> HostEvent? {
            events.withLock { $0.dropFirst(mark).first(where: matches) }
        }
    }

    /// Where each command sent and each event goes as a JSON line (`--trace`), and what each line
    /// begins with (the test and the guest); nil for nowhere.
    private let trace: (sink: CheckTrace, prefix: String)?

    /// A host in a new temporary directory, guests opened by `opener`, with `policy`'s timings;
    /// with `trace`, every command and event of it as a JSON line there, headed by `prefix`.
    init(
        opener: any GuestOpener, policy: CheckPolicy, logger: Logger, trace: (sink: CheckTrace, prefix: String)? = nil
    ) throws(CheckFailure) {
        self.trace = trace
        var template = Array((NSTemporaryDirectory() + "apphost-check-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CheckFailure(expected: "a temporary data directory", observed: String(cString: strerror(errno)))
        }
        directory = String(cString: made)
        service = HostService(
            dataDirectory: DataDirectory(path: directory), opener: opener, restartPolicy: .never,
            watchdog: policy.watchdog, background: policy.background, hostQueue: queue, logger: logger)
        let recorded = recorded
        subscription = service.subscribe { event in
            recorded.append(event)
            if let trace { trace.sink.write(trace.prefix + #""event":"# + ControlCoding.line(event) + "}") }
        }
        do {
            try service.start()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw CheckFailure(expected: "a host to start", observed: error.description)
        }
    }

    /// Launches the guest at `path` into the foreground and waits until it is active (A1, S2).
    func launch(_ path: String, within limit: Duration) throws(CheckFailure) -> GuestDescriptor {
        let outcome = Mutex<Result<GuestDescriptor, HostCommandError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        service.launch(paths: [path], onOutcome: { _, result in outcome.withLock { $0 = result } }) { _ in
            done.signal()
        }
        guard done.wait(timeout: .now() + limit.timeInterval) == .success else {
            throw CheckFailure(expected: "the guest to load within \(limit)", observed: "still loading")
        }
        switch outcome.withLock({ $0 }) {
        case .success(let descriptor)?:
            _ = try waitFor("the guest to become active", within: limit) {
                $0.kind == .appState && $0.guest == descriptor.id && $0.to == AppState.active.description
            }
            return descriptor
        case .failure(let error)?:
            throw CheckFailure(expected: "the guest to launch", observed: error.description)
        case nil:
            throw CheckFailure(expected: "the guest to launch", observed: "no outcome")
        }
    }

    /// Sends `command` as an operator would and waits for its answer.
    func send<Command: ControlCommand>(_ command: Command, within limit: Duration) throws(CheckFailure)
        -> Result<Command.Response, HostCommandError>
    {
        let answer = Mutex<Result<Command.Response, HostCommandError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        if let trace { trace.sink.write(trace.prefix + #""command":"# + command.line + "}") }
        queue.async { [service] in
            do throws(HostCommandError) {
                try command.apply(to: service) { result in
                    answer.withLock { $0 = result }
                    done.signal()
                }
            } catch {
                answer.withLock { $0 = .failure(error) }
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + limit.timeInterval) == .success, let result = answer.withLock({ $0 })
        else {
            throw CheckFailure(expected: "an answer to \(Command.name) within \(limit)", observed: "no answer")
        }
        return result
    }

    /// How many events there have been: a mark to look after.
    var mark: Int { recorded.events.withLock { $0.count } }

    /// The events from `mark` on.
    func events(after mark: Int = 0) -> [HostEvent] { recorded.events.withLock { Array($0.dropFirst(mark)) } }

    /// The first event after `mark` that `matches`, waiting up to `limit` for it.
    func waitFor(
        _ what: String, after mark: Int = 0, within limit: Duration, _ matches: (HostEvent) -> Bool
    ) throws(CheckFailure) -> HostEvent {
        let deadline = ContinuousClock.now + limit
        while true {
            if let event = recorded.first(after: mark, where: matches) { return event }
            guard ContinuousClock.now < deadline else {
                throw CheckFailure(expected: "\(what) within \(limit)", observed: "it did not")
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// The guest's last `count` log lines, for a failure's evidence.
    func lastLogLines(of guest: String, count: Int = 5) -> [String] {
        events().filter { $0.kind == .log && $0.guest == guest }.suffix(count).map { $0.message ?? "" }
    }

    /// The first event after `mark` that says the guest died or was stopped for misbehaving.
    func death(of guest: String, after mark: Int) -> HostEvent? {
        recorded.first(after: mark) {
            $0.guest == guest
                && ($0.kind == .error || ($0.kind == .terminated && $0.reason != .requested && $0.reason != .shutdown))
        }
    }

    /// Stops the host and removes its directory. The guests' workers are killed first: how a
    /// guest goes is the terminate test's to judge, and a guest that hangs on its way out would
    /// hold every other test up to the watchdog's hard limit.
    func close() {
        let pids = queue.sync { [service] in service.controlStatus().guests.compactMap(\.pid) }
        for pid in pids { kill(pid, SIGKILL) }
        let done = DispatchSemaphore(value: 0)
        service.shutdown { done.signal() }
        _ = done.wait(timeout: .now() + 30)
        subscription.cancel()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// `apphost check --trace FILE`: one JSON line per command a test sent and per event its host
/// published, from any thread, in the order they came.
public final class CheckTrace: Sendable {
    private let handle: Mutex<FileHandle>

    public init(handle: FileHandle) { self.handle = Mutex(handle) }

    func write(_ line: String) {
        handle.withLock { $0.write(Data((line + "\n").utf8)) }
    }

    /// `{"guest":...,"test":..., ` : what each line of one test begins with.
    static func prefix(guest: String, test: String) -> String {
        "{\"guest\":" + ControlCoding.line(guest) + ",\"test\":" + ControlCoding.line(test) + ","
    }
}
