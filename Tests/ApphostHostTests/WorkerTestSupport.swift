import ApphostExecutors
import ApphostVocabulary
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels
@testable import ApphostFreezing

/// A test-only `ProcessFreezer` with SIGSTOP and SIGCONT that records what it was asked, so that
/// the worker tests depend neither on cgroups nor on the production freezers.
final class WorkerTestFreezer: ProcessFreezer {
    let mechanism = "SIGSTOP (tests)"
    private let calls = Mutex<[String]>([])

    /// "adopt", "freeze", "thaw", "release", in order, for `pid`.
    func calls(for pid: pid_t) -> [String] {
        calls.withLock { $0.filter { $0.hasSuffix(" \(pid)") }.map { String($0.split(separator: " ")[0]) } }
    }

    var adoptedCount: Int { calls.withLock { $0.filter { $0.hasPrefix("adopt ") }.count } }
    var releasedCount: Int { calls.withLock { $0.filter { $0.hasPrefix("release ") }.count } }

    func adopt(pid: pid_t) throws(FreezeError) { record("adopt", pid) }

    func freeze(pid: pid_t) throws(FreezeError) {
        record("freeze", pid)
        guard kill(pid, SIGSTOP) == 0 else { throw FreezeError("SIGSTOP: \(String(cString: strerror(errno)))") }
        try waitUntil(pid, stopped: true)
    }

    func thaw(pid: pid_t) throws(FreezeError) {
        record("thaw", pid)
        guard kill(pid, SIGCONT) == 0 else { throw FreezeError("SIGCONT: \(String(cString: strerror(errno)))") }
        try waitUntil(pid, stopped: false)
    }

    func release(pid: pid_t) { record("release", pid) }

    private func record(_ call: String, _ pid: pid_t) { calls.withLock { $0.append("\(call) \(pid)") } }

    /// Every thread of `pid` is stopped (or running again), as /proc says.
    private func waitUntil(_ pid: pid_t, stopped: Bool) throws(FreezeError) {
        let deadline = Date() + 5
        while Date() < deadline {
            let states = ProcessTable.threadStates(of: pid)
            if states.isEmpty { throw FreezeError("process \(pid) is gone") }
            if states.allSatisfy({ ($0 == "T" || $0 == "t") == stopped }) { return }
            usleep(1000)
        }
        throw FreezeError("process \(pid) did not \(stopped ? "stop" : "continue") within 5 s")
    }
}

/// What /proc says about processes and descriptors, for the leak and zombie checks.
enum ProcessTable {
    /// The state letter of each thread of `pid`; empty once it is gone.
    static func threadStates(of pid: pid_t) -> [Character] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { stat(path: "/proc/\(pid)/task/\($0)/stat")?.state }
    }

    /// The process's state letter, or nil once it has been reaped.
    static func state(of pid: pid_t) -> Character? { stat(path: "/proc/\(pid)/stat")?.state }

    /// Children of this process that have exited and were never waited for.
    static func zombieChildren() -> [pid_t] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = stat(path: "/proc/\(entry)/stat") else { return nil }
            return stat.parent == me && stat.state == "Z" ? pid : nil
        }
    }

    static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// "pid (comm) state ppid ...": the command may hold spaces and parentheses, so the fields
    /// are counted from the last ')'.
    private static func stat(path: String) -> (state: Character, parent: pid_t)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 2, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return (state, parent)
    }
}

/// Opens guests through a `WorkerOpener` and waits for what tests need, with a host queue that
/// `FixtureObserver.currentQueue` names "host".
final class WorkerTestHost: @unchecked Sendable {
    // Immutable after init.
    let hostQueue: DispatchQueue
    /// What the channels run on: `hostQueue`, or with `onEventLoop` the host's event loop, as in
    /// `apphost`.
    let executor: any HostExecutor
    let freezer = WorkerTestFreezer()
    let opener: WorkerOpener
    let guestsDirectory = GuestFixtures.path("worker-guests-\(UUID().uuidString)")

    init(loadTimeout: Duration = .seconds(10), stopTimeout: Duration = .seconds(5), onEventLoop: Bool = false) throws {
        hostQueue = DispatchQueue(label: "apphost.test.worker-host")
        hostQueue.setSpecific(key: FixtureObserver.queueKey, value: "host")
        executor = onEventLoop ? HostEventLoop.shared : hostQueue
        let worker: String
        do {
            worker = try WorkerExecutable.locate()
        } catch {
            XCTFail("\(error): build it with `swift build --product apphost-worker` before the tests")
            throw error
        }
        opener = WorkerOpener(
            workerPath: worker, freezer: freezer, loadTimeout: loadTimeout, stopTimeout: stopTimeout)
    }

    /// Opens `path`; `events` receives what the guest sends.
    func open(
        _ path: String, events: WorkerEventLog = WorkerEventLog(), file: StaticString = #filePath, line: UInt = #line
    )
        throws -> OpenResult
    {
        let result = Mutex<OpenResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        opener.open(
            path: path, guestsDirectory: guestsDirectory, hostQueue: executor, onEvent: { events.append($0) },
            completion: { [executor] opened in
                executor.preconditionCurrent()
                result.withLock { $0 = OpenResult(opened) }
                done.signal()
            })
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "open completes", file: file, line: line)
        return try XCTUnwrap(result.withLock { $0 }, file: file, line: line)
    }

    /// Opens a guest that must load.
    func channel(
        _ path: String, events: WorkerEventLog = WorkerEventLog(), file: StaticString = #filePath, line: UInt = #line
    )
        throws -> WorkerChannel
    {
        let opened = try open(path, events: events, file: file, line: line)
        let guest = try XCTUnwrap(opened.success, "\(opened.failure?.description ?? "")", file: file, line: line)
        return try XCTUnwrap(guest.channel as? WorkerChannel, file: file, line: line)
    }

    func close(_ channel: any GuestChannel, file: StaticString = #filePath, line: UInt = #line) {
        let done = DispatchSemaphore(value: 0)
        channel.close { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "close completes", file: file, line: line)
    }

    struct Reply: Sendable {
        var index: Int
        var reply: GuestReply
        var queue: String?
    }

    /// Sends every message at once (with `batched`, in one `send(all:)`), then waits for all
    /// replies, in the order they arrived.
    func sendAll(
        _ messages: [GuestMessage], to channel: any GuestChannel, batched: Bool = false, timeout: TimeInterval = 20,
        file: StaticString = #filePath, line: UInt = #line
    ) -> [Reply] {
        let replies = Mutex<[Reply]>([])
        let group = DispatchGroup()
        var batch: [(GuestMessage, @Sendable (GuestReply) -> Void)] = []
        for (index, message) in messages.enumerated() {
            group.enter()
            let reply: @Sendable (GuestReply) -> Void = { reply in
                // On the test's queue (run there, or by the loop's thread with `sync`), or else on the loop.
                let queue = FixtureObserver.currentQueue ?? (HostEventLoop.shared.isCurrent ? "loop" : nil)
                replies.withLock { $0.append(Reply(index: index, reply: reply, queue: queue)) }
                group.leave()
            }
            if batched { batch.append((message, reply)) } else { channel.send(message, reply: reply) }
        }
        if batched { channel.send(all: batch) }
        XCTAssertEqual(group.wait(timeout: .now() + timeout), .success, "every reply arrives", file: file, line: line)
        return replies.withLock { $0 }
    }

    func send(_ message: GuestMessage, to channel: any GuestChannel, file: StaticString = #filePath, line: UInt = #line)
        -> GuestReply?
    {
        sendAll([message], to: channel, file: file, line: line).first?.reply
    }

    func suspend(_ channel: any GuestChannel) -> Result<Void, ChannelFailure>? {
        wait { done in channel.suspend(completion: done) }
    }

    func resume(_ channel: any GuestChannel) -> Result<Void, ChannelFailure>? {
        wait { done in channel.resume(completion: done) }
    }

    func forceStop(_ channel: any GuestChannel, freezing: Bool) -> Result<Void, ChannelFailure>? {
        wait { done in channel.forceStop(freezing: freezing, completion: done) }
    }

    /// Waits until what the host queue holds has run.
    func settle() { executor.executeAndWait {} }

    private func wait(
        _ start: (@escaping @Sendable (Result<Void, ChannelFailure>) -> Void) -> Void
    ) -> Result<Void, ChannelFailure>? {
        let result = Mutex<Result<Void, ChannelFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "completes")
        return result.withLock { $0 }
    }
}

/// What a guest in a worker sent the host, as the opener's onEvent received it, and whether each
/// event arrived on the host queue.
final class WorkerEventLog: Sendable {
    private let state = Mutex<(events: [GuestEvent], offQueue: Int)>(([], 0))
    /// The host queue is the event loop (`WorkerTestHost(onEventLoop:)`), not the tests' queue.
    private let onEventLoop: Bool

    init(onEventLoop: Bool = false) {
        self.onEventLoop = onEventLoop
    }

    func append(_ event: GuestEvent) {
        let onHost = onEventLoop ? HostEventLoop.shared.isCurrent : FixtureObserver.currentQueue == "host"
        state.withLock {
            $0.events.append(event)
            if !onHost { $0.offQueue += 1 }
        }
    }

    var events: [GuestEvent] { state.withLock { $0.events } }
    var allOnHostQueue: Bool { state.withLock { $0.offQueue == 0 } }

    var logLines: [String] {
        events.compactMap { event in
            guard case .log(_, let message) = event else { return nil }
            return message
        }
    }

    var saves: [String] {
        events.compactMap { event in
            guard case .saveSceneState(let scene, let data, _) = event else { return nil }
            return "scene \(scene): \(String(decoding: data, as: UTF8.self))"
        }
    }

    /// The `.died` causes received, in order.
    var deaths: [String] {
        events.compactMap { event in
            guard case .died(let cause) = event else { return nil }
            return cause
        }
    }

    /// Waits (10 s at most) until `condition` holds for the events so far.
    @discardableResult
    func wait(timeout: TimeInterval = 10, until condition: (WorkerEventLog) -> Bool) -> Bool {
        let deadline = Date() + timeout
        while Date() < deadline {
            if condition(self) { return true }
            usleep(2000)
        }
        return condition(self)
    }
}
