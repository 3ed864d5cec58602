import ApphostExecutors
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels
@testable import ApphostService

/// The worker channel with the host's event loop as its host queue, as `apphost` runs it (the
/// other worker tests give it a Dispatch queue of its own): replies and events on the loop, in
/// order; a worker's output and end delivered without deadlocking the loop, which then both reads
/// and delivers.
final class WorkerChannelOnEventLoopTests: XCTestCase {
    private typealias M = TestMessages
    private var host: WorkerTestHost!

    override func setUpWithError() throws {
        host = try WorkerTestHost(onEventLoop: true)
    }

    override func tearDown() {
        host = nil
    }

    // CONTRACT A2 S2 S3 S6: in order, on the host queue (the loop), each log before its reply.
    func testRepliesAndEventsRunInOrderOnTheLoop() throws {
        let events = WorkerEventLog(onEventLoop: true)
        let channel = try host.channel(try GuestFixtures.library("observable_guest.c"), events: events)
        defer { host.close(channel) }
        let messages = M.sceneLifecycle
        for batched in [false, true] {
            let before = events.logLines.count
            let replies = host.sendAll(messages, to: channel, batched: batched)
            XCTAssertEqual(replies.map(\.index), Array(messages.indices), "FIFO")
            XCTAssertEqual(replies.map(\.reply), Array(repeating: .success(0), count: messages.count))
            XCTAssertTrue(replies.allSatisfy { $0.queue == "loop" }, "\(replies.map(\.queue))")
            XCTAssertEqual(
                Array(events.logLines.dropFirst(before)),
                messages.map { "callback \($0.call.callbackName)" + ($0.call.scene.map { " scene=\($0)" } ?? "") })
        }
        XCTAssertTrue(events.allOnHostQueue)
    }

    // A call sent from the loop (as the core sends) gets its reply there after `send` returned,
    // even when the worker answered before the write returned.
    func testAReplyToACallSentOnTheLoopRunsAfterSendReturns() throws {
        let channel = try host.channel(try GuestFixtures.library("observable_guest.c"))
        defer { host.close(channel) }
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<50 {
            HostEventLoop.shared.execute {
                channel.send(M.memoryWarning) { _ in
                    order.withLock { $0.append("reply") }
                    done.signal()
                }
                order.withLock { $0.append("sent") }
            }
            XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        }
        XCTAssertEqual(order.withLock { $0 }, Array(repeating: ["sent", "reply"], count: 50).flatMap { $0 })
    }

    // X2: a crash in a callback fails the call with its cause, then the death is reported, with
    // what the worker printed last drained on the loop, and the loop runs on for the others.
    func testACrashIsReportedAndTheLoopRunsOn() throws {
        let bystander = try host.channel(try GuestFixtures.library("observable_guest.c"))
        defer { host.close(bystander) }
        let path = try GuestFixtures.library(
            "dying_guest.c", name: "dying-loop-callback",
            flags: [
                "-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=2", "-DFIXTURE_ID=\"org.apphost.fixtures.loop-callback\"",
            ])
        let events = WorkerEventLog(onEventLoop: true)
        let channel = try host.channel(path, events: events)
        let replies = host.sendAll([M.launch, M.connect(1), M.memoryWarning, M.launch], to: channel)
        XCTAssertEqual(
            replies.map(\.reply).suffix(2),
            [.failure(.crashed("killed by SIGABRT")), .failure(.crashed("killed by SIGABRT"))])
        XCTAssertTrue(events.wait { $0.deaths == ["killed by SIGABRT"] }, "\(events.deaths)")
        XCTAssertTrue(events.allOnHostQueue)
        host.close(channel)
        XCTAssertEqual(host.send(M.memoryWarning, to: bystander), .success(0))
    }

    // B7: suspended, then closed: killed without callbacks, on the loop as on a queue.
    func testSuspendResumeAndCloseOnTheLoop() throws {
        let channel = try host.channel(try GuestFixtures.library("observable_guest.c"))
        XCTAssertEqual(host.send(M.launch, to: channel), .success(0))
        XCTAssertNotNil(try host.suspend(channel)?.get())
        XCTAssertNotNil(try host.resume(channel)?.get())
        XCTAssertEqual(host.send(M.memoryWarning, to: channel), .success(0))
        XCTAssertNotNil(try host.suspend(channel)?.get())
        host.close(channel)
        XCTAssertNil(ProcessTable.state(of: channel.pid), "reaped")
    }
}
