import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

/// Background tasks, budgets, automatic suspension and what waits for a suspended guest
/// (CONTRACT B1 to B9), and memory pressure (A4), on the manual clock with the default policy:
/// a 30 s budget, expiration 5 s before its end, suspension 1 s after going idle.
final class BackgroundPolicyTests: XCTestCase {
    private var host: CoreHarness!
    private var guest: FakeGuest!
    private let id = "org.test.a"

    override func setUp() {
        host = CoreHarness()
        guest = host.opener.add(id)
        host.run { $0.launch(path: id, foreground: true) }
    }

    private func messagesSince(_ count: Int) -> [String] { Array(host.calls.allNames(id).dropFirst(count)) }

    private var status: GuestStatus { host.guest(id)! }

    /// The guest goes home at t=0 and begins `names` as its tasks from did_enter_background.
    private func backgroundWithTasks(_ names: [String]) {
        host.run { $0.scenes.home() }
        for (index, name) in names.enumerated() { guest.emit(.taskBegan(TaskID(index + 1), name: name)) }
        host.settle()
    }

    // CONTRACT B1: once the host has decided to suspend a guest, no background work is possible:
    // its runtime hears so before will_resign_active, and no budget starts in did_enter_background,
    // so a task begun there gets the invalid id.
    func testSuspendingAForegroundGuestEndsBackgroundWorkBeforeItsCallbacks() throws {
        let before = host.calls.allNames(id).count
        host.run { $0.suspend(id) }
        XCTAssertEqual(
            messagesSince(before),
            [
                "org.test.a:background_time=0.0 seconds", "org.test.a:will_resign_active@1",
                "org.test.a:did_enter_background@1", "org.test.a:background_time=0.0 seconds",
            ])
        XCTAssertEqual(status.appState, .suspended)
        host.run { $0.resume(id) }
        XCTAssertEqual(host.calls.allNames(id).last, "org.test.a:background_time=30.0 seconds", "a fresh budget")
    }

    // CONTRACT B1, A3: the same for termination (ctl terminate, and a host's shutdown): no budget
    // starts while the guest goes to background on its way to will_terminate.
    func testTerminatingAForegroundGuestEndsBackgroundWorkBeforeItsCallbacks() throws {
        for command in ["terminate", "shutdown"] {
            let before = host.calls.allNames(id).count
            host.run { core in
                if command == "terminate" { core.terminate(id) } else { core.shutdown {} }
            }
            XCTAssertEqual(
                messagesSince(before),
                [
                    "org.test.a:background_time=0.0 seconds",
                    "org.test.a:will_resign_active@\(command == "terminate" ? 1 : 2)",
                    "org.test.a:did_enter_background@\(command == "terminate" ? 1 : 2)", "org.test.a:will_terminate",
                ], command)
            host.run { $0.launch(path: id, foreground: true) }
        }
    }

    // CONTRACT B2: the budget starts as the guest enters background, told to its runtime before
    // did_enter_background, counts down, and is reset (unlimited) before will_enter_foreground.
    func testBudgetStartsInBackgroundAndResetsInForeground() throws {
        XCTAssertNil(status.backgroundTimeRemaining, "unlimited in the foreground")
        let before = host.calls.allNames(id).count
        host.run { $0.scenes.home() }
        XCTAssertEqual(
            messagesSince(before),
            [
                "org.test.a:will_resign_active@1", "org.test.a:background_time=30.0 seconds",
                "org.test.a:did_enter_background@1",
            ])
        guest.emit(.taskBegan(1, name: "upload"))
        host.advance(by: .seconds(10))
        XCTAssertEqual(status.backgroundTimeRemaining, 20)

        let back = host.calls.allNames(id).count
        host.run { $0.switchTo(id) }
        XCTAssertEqual(
            messagesSince(back),
            [
                "org.test.a:background_time=unlimited", "org.test.a:will_enter_foreground@1",
                "org.test.a:did_become_active@1",
            ])
        XCTAssertNil(status.backgroundTimeRemaining)
        host.advance(by: .seconds(60))
        XCTAssertEqual(status.appState, .active, "no budget runs in the foreground")

        host.run { $0.scenes.home() }
        XCTAssertEqual(status.backgroundTimeRemaining, 30, "a fresh budget")
        XCTAssertEqual(status.tasks.map(\.name), ["upload"], "the task stayed open")
    }

    // CONTRACT B3: every open task's expiration handler runs once, the grace period before the
    // end; one ended before does not.
    func testExpirationHandlersRunTheGracePeriodBeforeTheEnd() throws {
        backgroundWithTasks(["upload", "sync", "done early"])
        guest.emit(.taskEnded(3))
        host.advance(by: .milliseconds(24_999))
        XCTAssertFalse(host.calls.names(id).contains { $0.contains("expiration_handler") })
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(
            host.calls.names(id).suffix(2), ["org.test.a:expiration_handler#1", "org.test.a:expiration_handler#2"])
        XCTAssertEqual(host.events.of(.taskExpired).map(\.name), ["upload", "sync"])
        XCTAssertEqual(status.tasks.map(\.expired), [true, true])
    }

    // CONTRACT B3, B6: a guest whose handlers end their tasks is suspended 1 s later, not
    // for overrunning.
    func testTasksEndedOnExpirationLeadToAnOrdinarySuspension() throws {
        backgroundWithTasks(["upload"])
        host.advance(by: .seconds(25))
        guest.emit(.taskEnded(1))
        host.settle()
        host.advance(by: .milliseconds(999))
        XCTAssertEqual(status.appState, .background)
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(status.appState, .suspended)
        XCTAssertEqual(status.suspension?.reason, .automatic)
        XCTAssertTrue(host.events.of(.overrun).isEmpty)
    }

    // CONTRACT B4, B1: a guest still holding tasks at the end of its budget is suspended, the
    // overrun names the tasks, and its runtime learns first that no background work is possible.
    func testOverrunSuspendsAndNamesTheTasks() throws {
        backgroundWithTasks(["upload", "sync"])
        let before = host.calls.allNames(id).count
        host.advance(by: .milliseconds(29_999))
        XCTAssertEqual(status.appState, .background)
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(status.appState, .suspended)
        XCTAssertEqual(messagesSince(before).last, "org.test.a:background_time=0.0 seconds")
        let overrun = try XCTUnwrap(host.events.of(.overrun).first)
        XCTAssertEqual(overrun.reason, .budgetExpired)
        XCTAssertEqual(overrun.message, "ran over its 30 s background budget holding \"upload\", \"sync\"")
        XCTAssertEqual(host.events.of(.suspended).last?.reason, .budgetExpired)
        XCTAssertEqual(status.suspension?.reason, .budgetExpired)
        XCTAssertEqual(status.suspension?.since, host.clock.now())
        XCTAssertNil(status.backgroundTimeRemaining)
    }

    // CONTRACT B4, A3: with the terminate policy, an overrunning guest is frozen, then
    // terminated without a callback.
    func testOverrunTerminatesByPolicy() throws {
        host = CoreHarness(background: BackgroundPolicy(overrun: .terminate))
        guest = host.opener.add(id)
        host.run { $0.launch(path: id, foreground: true) }
        backgroundWithTasks(["sync"])
        host.advance(by: .seconds(30))
        XCTAssertEqual(status.appState, .notRunning)
        XCTAssertEqual(status.lastReason, .budgetExpired)
        XCTAssertFalse(host.calls.names(id).contains("org.test.a:will_terminate"))
        XCTAssertEqual(guest.suspensions, 1)
        XCTAssertEqual(host.events.of(.terminated).last?.reason, .budgetExpired)
    }

    // CONTRACT B6: suspended 1 s after did_enter_background returns, counted from its return.
    func testIdleGuestIsSuspendedOneSecondAfterDidEnterBackgroundReturns() throws {
        guest.holdReplies = true
        host.run { $0.scenes.home() }
        host.advance(by: .seconds(3))
        XCTAssertEqual(status.appState, .background, "did_enter_background has not returned yet")
        guest.holdReplies = false
        host.run { _ in while !guest.heldReplies.isEmpty { guest.heldReplies.removeFirst()() } }
        host.advance(by: .milliseconds(999))
        XCTAssertEqual(status.appState, .background)
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(status.appState, .suspended)
        XCTAssertEqual(host.events.of(.suspended).last?.reason, .automatic)
    }

    // CONTRACT B6: a task begun within the delay keeps the guest running; ending it starts the
    // delay again.
    func testTaskKeepsGuestRunningUntilItEnds() throws {
        host.run { $0.scenes.home() }
        host.advance(by: .milliseconds(500))
        guest.emit(.taskBegan(1, name: "upload"))
        host.advance(by: .seconds(10))
        XCTAssertEqual(status.appState, .background)
        XCTAssertEqual(status.tasks.map(\.name), ["upload"])
        guest.emit(.taskEnded(1))
        host.advance(by: .milliseconds(999))
        XCTAssertEqual(status.appState, .background)
        host.advance(by: .milliseconds(1))
        XCTAssertEqual(status.appState, .suspended)
        XCTAssertEqual(
            host.events.all.filter { [.taskBegun, .taskEnded].contains($0.kind) }.map {
                "\($0.kind.rawValue) \($0.name!)"
            },
            ["task-begun upload", "task-ended upload"])
    }

    // CONTRACT B6, B1: a task begun while the automatic suspension was being decided (before the
    // runtime learnt there is no background time) calls it off.
    func testTaskBegunDuringAutomaticSuspensionCallsItOff() throws {
        host.run { $0.scenes.home() }
        guest.holdReplies = true
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.calls.allNames(id).last, "org.test.a:background_time=0.0 seconds")
        guest.emit(.taskBegan(1, name: "late"))
        host.run { _ in guest.heldReplies.removeFirst()() }
        XCTAssertEqual(status.appState, .background)
        XCTAssertEqual(guest.suspensions, 0)
        XCTAssertEqual(host.calls.allNames(id).last, "org.test.a:background_time=29.0 seconds", "what is left")
    }

    // CONTRACT B7, B8: no timer fires and no async work runs while suspended; on resume each
    // timer that fell due runs once, then the work, in order.
    func testTimersAndWorkAreHeldWhileSuspended() throws {
        host.run { $0.scenes.home() }
        guest.emit(.timerScheduled(7, delay: .milliseconds(500), interval: .milliseconds(500)))
        guest.emit(.timerScheduled(8, delay: .seconds(3), interval: nil))
        host.advance(by: .milliseconds(500))
        XCTAssertEqual(host.calls.names(id).last, "org.test.a:timer#7")
        host.advance(by: .milliseconds(500))
        XCTAssertEqual(status.appState, .suspended, "B6: idle, timers do not count as work")
        let before = host.calls.names(id).count
        host.advance(by: .seconds(10))
        guest.emit(.workSubmitted(1))
        host.settle()
        XCTAssertEqual(host.calls.names(id).count, before, "nothing runs while suspended")

        host.run { $0.resume(id) }
        XCTAssertEqual(
            Array(host.calls.names(id).dropFirst(before)),
            ["org.test.a:timer#7", "org.test.a:timer#8", "org.test.a:async_work#1"])
        host.advance(by: .milliseconds(500))
        XCTAssertEqual(host.calls.names(id).last, "org.test.a:timer#7", "the repeating timer goes on")
        guest.emit(.timerCancelled(7))
        host.advance(by: .seconds(5))
        XCTAssertEqual(host.calls.names(id).filter { $0.hasSuffix("timer#7") }.count, 3)
    }

    // CONTRACT B8, A4: memory warnings to a suspended guest are coalesced into one, delivered on
    // resume before will_enter_foreground; running guests get theirs at once.
    func testMemoryWarningsForASuspendedGuestAreCoalesced() throws {
        _ = host.opener.add("org.test.b")
        host.run { $0.launch(path: "org.test.b", foreground: false) }
        host.run { $0.scenes.home() }
        host.advance(by: .seconds(1))
        XCTAssertEqual(status.appState, .suspended)
        host.run { $0.switchTo("org.test.b") }
        host.run { $0.memory.take(.warning(.warning)) }
        host.run { $0.memory.take(.warning(.warning)) }
        XCTAssertEqual(host.calls.names("org.test.b").last, "org.test.b:did_receive_memory_warning")
        let before = host.calls.names(id).count
        host.run { $0.switchTo(id) }
        XCTAssertEqual(
            Array(host.calls.names(id).dropFirst(before)),
            [
                "org.test.a:did_receive_memory_warning", "org.test.a:will_enter_foreground@1",
                "org.test.a:did_become_active@1",
            ])
    }

    // CONTRACT B9: a guest that declared background audio keeps running while its session plays
    // in background, even past its budget; once the audio stops it is suspended like any other.
    func testBackgroundAudioKeepsAGuestRunning() throws {
        let player = host.opener.add("org.test.player", capabilities: .backgroundAudio)
        host.run { $0.launch(path: "org.test.player", foreground: true) }
        player.emit(.audioConfigured(try AudioConfiguration(category: .playback)))
        player.emit(.audioActivationRequested(1))
        player.emit(.audioRendering(true))
        host.run { $0.scenes.home() }
        player.emit(.taskBegan(1, name: "stream"))
        host.advance(by: .seconds(40))
        XCTAssertEqual(host.guest("org.test.player")?.appState, .background)
        XCTAssertEqual(host.events.of(.overrun, guest: "org.test.player").count, 1)
        player.emit(.taskEnded(1))
        player.emit(.audioRendering(false))
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.guest("org.test.player")?.appState, .suspended)
    }

    // CONTRACT B9: without the declared capability, a playing session does not keep it running.
    func testAudioWithoutTheCapabilityDoesNotKeepAGuestRunning() throws {
        guest.emit(.audioConfigured(try AudioConfiguration(category: .playback)))
        guest.emit(.audioActivationRequested(1))
        guest.emit(.audioRendering(true))
        host.run { $0.scenes.home() }
        host.advance(by: .seconds(1))
        XCTAssertEqual(status.appState, .suspended)
    }

    // CONTRACT A4: at critical pressure suspended guests are terminated least recently used
    // first, keeping their saved state; the foreground guest is only warned.
    func testCriticalMemoryPressureTerminatesSuspendedGuestsLeastRecentlyUsedFirst() throws {
        for other in ["org.test.b", "org.test.c"] {
            _ = host.opener.add(other)
            host.run { $0.launch(path: other, foreground: true) }
            host.advance(by: .seconds(1))
        }
        host.opener.guests["org.test.b"]?.emit(.saveSceneState(2, Data("b".utf8)))
        host.run { $0.switchTo(id) }
        host.advance(by: .seconds(2))
        XCTAssertEqual(host.guest("org.test.b")?.appState, .suspended)
        XCTAssertEqual(host.guest("org.test.c")?.appState, .suspended)

        host.run { $0.memory.take(.warning(.critical)) }
        XCTAssertEqual(host.events.of(.terminated).map(\.guest), ["org.test.b", "org.test.c"])
        XCTAssertEqual(host.events.of(.terminated).map(\.reason), [.memory, .memory])
        XCTAssertEqual(status.appState, .active)
        XCTAssertEqual(host.calls.names(id).last, "org.test.a:did_receive_memory_warning")
        XCTAssertEqual(host.guest("org.test.b")?.scenes.first?.savedBytes, 1)
    }

    // CONTRACT A4: over the host's memory limit the guests are warned; still over at the next
    // reading, one guest is terminated per reading, suspended ones first, the foreground last.
    func testHostMemoryLimitWarnsThenTerminatesOneAtATime() throws {
        host = CoreHarness(memoryLimit: 100)
        for other in ["org.test.a", "org.test.b", "org.test.c"] {
            _ = host.opener.add(other)
            host.run { $0.launch(path: other, foreground: true) }
        }
        host.run { $0.switchTo("org.test.b") }
        host.advance(by: .seconds(1))  // a and c are suspended; a was used least recently.
        host.run { $0.memory.take(.usage(bytes: 50)) }
        XCTAssertTrue(host.events.of(.memoryWarning).isEmpty)
        host.run { $0.memory.take(.usage(bytes: 150)) }
        XCTAssertEqual(host.events.of(.memoryWarning).count, 1)
        XCTAssertTrue(host.events.of(.terminated).isEmpty)
        host.run { $0.memory.take(.usage(bytes: 150)) }
        host.run { $0.memory.take(.usage(bytes: 150)) }
        host.run { $0.memory.take(.usage(bytes: 150)) }
        XCTAssertEqual(host.events.of(.terminated).map(\.guest), ["org.test.a", "org.test.c", "org.test.b"])
        host.run { $0.memory.take(.usage(bytes: 50)) }
        host.run { $0.memory.take(.usage(bytes: 150)) }
        XCTAssertEqual(host.events.of(.memoryWarning).count, 2, "a new episode warns again")
    }

    // Operators see the open tasks and why a guest is suspended; every step has an event.
    func testStatusAndEventsShowTheBackgroundLife() throws {
        backgroundWithTasks(["upload"])
        XCTAssertEqual(status.tasks, [TaskStatus(id: 1, name: "upload", expired: false)])
        XCTAssertEqual(host.events.of(.taskBegun).last?.message, "task 1")
        host.advance(by: .seconds(30))
        XCTAssertEqual(
            host.events.all.map(\.kind).filter { [.taskBegun, .taskExpired, .overrun, .suspended].contains($0) },
            [.taskBegun, .taskExpired, .overrun, .suspended])
    }

    // A guest thread may schedule a timer right after init, before the channel opens: it fires.
    func testTimerScheduledBeforeTheChannelOpenedStillFires() throws {
        let early = host.opener.add("org.test.early")
        early.eventsAfterInit = [.timerScheduled(1, delay: .milliseconds(100), interval: nil)]
        host.run { $0.launch(path: "org.test.early", foreground: false) }
        host.advance(by: .milliseconds(100))
        XCTAssertEqual(host.calls.names("org.test.early").last, "org.test.early:timer#1")
    }
}
