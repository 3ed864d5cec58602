import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

@testable import ApphostPolicy

/// A guest's life on its own (CONTRACT A1 to A3, B5, B7, B8, X2): `GuestLifecycle` with one
/// guest's record, a fake channel that is never called and a manual clock's time. What it says
/// should happen is checked as values, in order.
final class GuestLifecycleTests: XCTestCase {
    private let clock = ManualClock()
    private var guest: GuestRecord!
    private var channel: UncalledChannel!

    override func setUp() {
        let descriptor = GuestDescriptor(id: "org.test.a", name: "a", version: "1.0")
        guest = GuestRecord(descriptor: descriptor, path: "/guests/a.so", now: clock.now())
        channel = UncalledChannel()
    }

    /// A guest that runs in background (no scene connected): its launch callback succeeded.
    private func running() {
        GuestLifecycle.launching(guest, on: channel)
        XCTAssertEqual(guest.phase, .launching)
        XCTAssertEqual(guest.appState, .background, "A1: background from the moment its launch callback may run")
        XCTAssertTrue(GuestLifecycle.launched(guest))
        XCTAssertEqual(guest.phase, .running)
    }

    private func suspended() {
        running()
        GuestLifecycle.changing(guest, suspending: true)
        _ = GuestLifecycle.settled(guest, suspending: true, .success(()), reason: .requested, at: clock.now())
    }

    // A2: did_finish_launching's answer decides the launch; a launch settled meanwhile is not
    // taken up again.
    func testA2TheLaunchCallbacksAnswerDecidesTheLaunch() {
        XCTAssertNil(GuestLifecycle.launchFailure(.success(0)))
        XCTAssertEqual(
            GuestLifecycle.launchFailure(.success(3)), "did_finish_launching returned 3 (\(StatusName.of(3)))")
        XCTAssertEqual(GuestLifecycle.launchFailure(.failure(.closed)), "did_finish_launching: channel closed")
        XCTAssertFalse(GuestLifecycle.launched(guest), "not launching: nothing to settle")
        XCTAssertEqual(guest.phase, .notRunning)
    }

    // B7: calls wait from the moment a suspension begins; once the channel confirms it, the guest
    // is suspended, with its reason and time, and no budget runs.
    func testB7AConfirmedSuspensionStopsTheBudgetThenSaysSo() {
        running()
        GuestLifecycle.changing(guest, suspending: true)
        XCTAssertEqual(guest.suspension, .suspending)
        XCTAssertTrue(guest.stopped)
        clock.advance(by: .seconds(2))
        let effects = GuestLifecycle.settled(guest, suspending: true, .success(()), reason: .automatic, at: clock.now())
        XCTAssertEqual(
            effects,
            [
                .budget(.suspended), .appStateChanged(from: .background, reason: .automatic),
                .record(.suspended, reason: .automatic),
            ])
        XCTAssertEqual(guest.suspension, .suspended)
        XCTAssertEqual(guest.appState, .suspended)
        XCTAssertEqual(guest.suspendedFor?.reason, .automatic)
        XCTAssertEqual(guest.suspendedFor?.since, clock.now())
    }

    // B7, B8: a suspension the channel could not make leaves the guest running, with what is left
    // of its budget and then what waited for it.
    func testB7AFailedSuspensionLeavesItRunningWithWhatWaited() {
        running()
        GuestLifecycle.changing(guest, suspending: true)
        let effects = GuestLifecycle.settled(
            guest, suspending: true, .failure(.failed("no freezer")), reason: .requested, at: clock.now())
        XCTAssertEqual(
            effects,
            [
                .record(.error, reason: .requested, message: "cannot suspend: no freezer"), .budget(.stayedRunning),
                .releaseHeld,
            ])
        XCTAssertEqual(guest.suspension, .running)
        XCTAssertNil(guest.suspendedFor)
    }

    // B6: a suspension called off (a task begun meanwhile) gives the same back.
    func testB6ASuspensionCalledOffGivesTheBudgetBack() {
        running()
        GuestLifecycle.changing(guest, suspending: true)
        XCTAssertEqual(GuestLifecycle.calledOff(guest), [.budget(.stayedRunning), .releaseHeld])
        XCTAssertEqual(guest.suspension, .running)
    }

    // B2, B8: resumed in background, the guest gets a fresh budget, then what waited for it.
    func testB8AResumedGuestGetsAFreshBudgetThenWhatWaited() {
        suspended()
        GuestLifecycle.changing(guest, suspending: false)
        XCTAssertEqual(guest.suspension, .resuming)
        XCTAssertEqual(guest.appState, .suspended, "calls wait until the channel confirms")
        let effects = GuestLifecycle.settled(
            guest, suspending: false, .success(()), reason: .requested, at: clock.now())
        XCTAssertEqual(
            effects,
            [
                .appStateChanged(from: .suspended, reason: .requested), .record(.resumed, reason: .requested),
                .budget(.resumed), .budget(.enteredBackground), .releaseHeld,
            ])
        XCTAssertEqual(guest.suspension, .running)
        XCTAssertNil(guest.suspendedFor)
    }

    // B7: a resumption that failed leaves the guest suspended, and holds what waits.
    func testB7AFailedResumptionLeavesItSuspended() {
        suspended()
        GuestLifecycle.changing(guest, suspending: false)
        let effects = GuestLifecycle.settled(
            guest, suspending: false, .failure(.closed), reason: .requested, at: clock.now())
        XCTAssertEqual(effects, [.record(.error, reason: .requested, message: "cannot resume: channel closed")])
        XCTAssertEqual(guest.suspension, .suspended)
        XCTAssertNotNil(guest.suspendedFor)
    }

    // B5: a guest the watchdog froze is suspended where it stands, out of the layout, and the
    // event says in what.
    func testB5AFrozenGuestIsSuspendedOutOfTheLayout() {
        running()
        let effects = GuestLifecycle.frozen(guest, overdue: "did_become_active has not returned", at: clock.now())
        XCTAssertEqual(
            effects,
            [
                .hide(.watchdog), .budget(.suspended), .appStateChanged(from: .background, reason: .watchdog),
                .record(.suspended, reason: .watchdog, message: "frozen: did_become_active has not returned"),
            ])
        XCTAssertEqual(guest.appState, .suspended)
        XCTAssertEqual(guest.suspendedFor?.reason, .watchdog)
    }

    // X2: a crash is said with the callback it was in, then the guest is unloaded and the restart
    // policy hears where it was; one the watchdog killed is said so.
    func testX2ACrashSaysWhereThenTheGuestDies() {
        running()
        XCTAssertEqual(
            GuestLifecycle.crashed(guest, cause: "signal 11", during: "did_enter_background", inForeground: true),
            [
                .record(.error, reason: .crash, message: "crashed in did_enter_background: signal 11"),
                .died(.crash, inForeground: true),
            ])
        guest.calls.killedByWatchdog = true
        XCTAssertEqual(
            GuestLifecycle.crashed(guest, cause: "signal 9", during: nil, inForeground: false),
            [
                .record(.error, reason: .watchdog, message: "killed by the watchdog outside any callback: signal 9"),
                .died(.watchdog, inForeground: false),
            ])
    }

    // A3, X2: one that fails on its way out is terminated all the same; the first failure is
    // what its termination says, and it is forgotten once said.
    func testA3AFailureOnTheWayOutIsSaidByTheTermination() {
        running()
        GuestLifecycle.terminating(guest)
        XCTAssertEqual(
            GuestLifecycle.crashed(guest, cause: "signal 6", during: "will_terminate", inForeground: false), [])
        XCTAssertEqual(GuestLifecycle.crashed(guest, cause: "signal 11", during: nil, inForeground: false), [])
        let (effects, trouble) = GuestLifecycle.ended(guest, reason: .requested)
        XCTAssertEqual(trouble, "it failed in will_terminate: signal 6")
        XCTAssertEqual(
            effects,
            [
                .forgetRun, .unattachScenes(.requested), .appStateChanged(from: .background, reason: .requested),
                .hide(.requested),
                .record(.error, reason: .requested, message: "it failed in will_terminate: signal 6"),
            ])
        XCTAssertNil(guest.terminationTrouble)
        XCTAssertEqual(guest.phase, .notRunning)
        XCTAssertNil(guest.channel)
    }

    // A3, B8: a guest's end leaves nothing of its run: not suspended, nothing held for it.
    func testA3AnEndedGuestKeepsNothingOfItsRun() {
        suspended()
        guest.held.holdMemoryWarning()
        let (effects, trouble) = GuestLifecycle.ended(guest, reason: .memory)
        XCTAssertNil(trouble)
        XCTAssertEqual(
            effects,
            [.forgetRun, .unattachScenes(.memory), .appStateChanged(from: .suspended, reason: .memory), .hide(.memory)])
        XCTAssertEqual(guest.suspension, .running)
        XCTAssertNil(guest.suspendedFor)
        XCTAssertFalse(guest.held.takeMemoryWarning())
        XCTAssertEqual(guest.appState, .notRunning)
    }
}

/// A channel no test calls: what a record holds while its guest runs, for parts that only look
/// at whether it has one. Any call of it fails the test.
final class UncalledChannel: GuestChannel, @unchecked Sendable {
    func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void) { XCTFail("sent \(message)") }
    func close(completion: @escaping @Sendable () -> Void) { XCTFail("closed") }
    func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) { XCTFail("suspended") }
    func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) { XCTFail("resumed") }
    func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        XCTFail("stopped")
    }
}
