import ApphostExecutors
import ApphostModel
import ApphostPolicy
import ApphostVocabulary
import CApphost
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import ApphostChannels
@testable import ApphostFreezing
@testable import ApphostLoading
@testable import ApphostService

/// Guests in worker processes, through `WorkerOpener` and `WorkerChannel` on the C fixtures: the
/// behaviours the in-process channel has, and what only isolation gives: crashes reported with
/// their cause (X2), whole-process suspension (B7), hung guests stopped.
final class WorkerChannelTests: XCTestCase {
    private typealias M = TestMessages
    private var host: WorkerTestHost!
    private var opened: [any GuestChannel] = []

    override func setUpWithError() throws {
        host = try WorkerTestHost()
    }

    override func tearDown() {
        for channel in opened { host.close(channel) }
        opened = []
        host = nil
    }

    // MARK: As in-process

    // CONTRACT A2 S2 S3 S6: callbacks run in the order sent; replies come back on the host queue
    // in the same order; what the guest logs arrives in order, before the reply of its callback.
    func testCallbacksRunInOrderAndRepliesComeInOrderOnTheHostQueue() throws {
        let events = WorkerEventLog()
        let channel = try open(try observable(), events: events)
        let messages = M.sceneLifecycle
        let replies = host.sendAll(messages, to: channel)
        XCTAssertEqual(replies.map(\.index), Array(messages.indices), "FIFO")
        XCTAssertEqual(replies.map(\.reply), Array(repeating: .success(0), count: messages.count))
        XCTAssertTrue(replies.allSatisfy { $0.queue == "host" })
        XCTAssertEqual(
            events.logLines,
            messages.map { "callback \($0.call.callbackName)" + ($0.call.scene.map { " scene=\($0)" } ?? "") })
        XCTAssertTrue(events.allOnHostQueue)
    }

    // Several messages sent at once (a budget's expirations) run in order, with their replies
    // in order, as when sent one by one.
    func testMessagesSentTogetherRunInOrder() throws {
        let events = WorkerEventLog()
        let channel = try open(try observable(), events: events)
        let messages = M.sceneLifecycle
        let replies = host.sendAll(messages, to: channel, batched: true)
        XCTAssertEqual(replies.map(\.index), Array(messages.indices), "FIFO")
        XCTAssertEqual(replies.map(\.reply), Array(repeating: .success(0), count: messages.count))
        XCTAssertEqual(
            events.logLines,
            messages.map { "callback \($0.call.callbackName)" + ($0.call.scene.map { " scene=\($0)" } ?? "") })
    }

    // CONTRACT A2: did_finish_launching's status is the reply.
    func testLaunchStatusIsTheReply() throws {
        let path = try dying(["-DFIXTURE_LAUNCH_STATUS=7"], name: "launch-status-7")
        let channel = try open(path)
        XCTAssertEqual(host.send(M.launch, to: channel), .success(7))
    }

    // CONTRACT S12: will_connect gets the restoration bytes (none, empty, some); a state saved
    // in a callback reaches the host before that callback's reply.
    func testRestorationDataGoesInAndSavedStateComesOutBeforeTheReply() throws {
        let events = WorkerEventLog()
        let channel = try open(try dying([], name: "dying-never"), events: events)
        let savesAtReply = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        channel.send(M.connect(1, restoration: Data("counter=3".utf8))) { _ in
            savesAtReply.withLock { $0 = events.saves }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(savesAtReply.withLock { $0 }, ["scene 1: saved in will_connect"])
        _ = host.sendAll([M.connect(2, restoration: nil), M.connect(3, restoration: Data())], to: channel)
        XCTAssertEqual(
            events.logLines.filter { $0.hasPrefix("restored") },
            ["restored \"counter=3\"", "restored nothing", "restored \"\""])
    }

    // CONTRACT A3: close runs after what was sent before it and calls deinit once; later sends
    // fail with .closed; the worker exits and is reaped, and the freezer forgets it.
    func testCloseCallsDeinitOnceAfterPendingMessagesAndLaterSendsFail() throws {
        let events = WorkerEventLog()
        let opened = try XCTUnwrap(try host.open(try observable(), events: events).success)
        let channel = try XCTUnwrap(opened.channel as? WorkerChannel)
        let order = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        for message in [M.launch, M.memoryWarning] {
            channel.send(message) { reply in order.withLock { $0.append("reply \(reply)") } }
        }
        channel.close {
            order.withLock { $0.append("closed") }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.withLock { $0 }, ["reply success(0)", "reply success(0)", "closed"])
        XCTAssertEqual(
            events.logLines,
            ["callback did_finish_launching", "callback did_receive_memory_warning", "callback deinit"])
        XCTAssertEqual(host.send(M.memoryWarning, to: channel), .failure(.closed))
        host.close(channel)  // a second close completes too
        XCTAssertEqual(events.deaths, [], "a requested stop is no death")
        XCTAssertNil(ProcessTable.state(of: channel.pid), "reaped")
        XCTAssertEqual(host.freezer.calls(for: channel.pid), ["adopt", "release"])
    }

    // A3: a closed channel is freed once it has ended: nothing it armed keeps it, neither the
    // kill timer of its close (which held it for good, some 2.6 KB a launch) nor the reaper.
    func testAClosedChannelIsFreed() throws {
        let channel = try weakly(host.channel(try observable()))
        XCTAssertNotNil(channel.object)
        try XCTUnwrap(channel.object.map { host.close($0) })
        XCTAssertTrue(WorkerEventLog().wait { _ in channel.object == nil }, "the closed channel was never freed")
    }

    // A guest that dies is freed as well, as is one killed because it did not stop in time.
    func testCrashedAndTimedOutChannelsAreFreed() throws {
        host = try WorkerTestHost(stopTimeout: .milliseconds(200))
        let crashed = try weakly(
            host.channel(try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=1"], name: "callback-1")))
        XCTAssertEqual(
            crashed.object.flatMap { host.send(M.memoryWarning, to: $0) }, .failure(.crashed("killed by SIGSEGV")))
        let hung = try weakly(
            host.channel(try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], name: "callback-hang")))
        hung.object?.send(M.memoryWarning) { _ in }
        try XCTUnwrap(hung.object.map { host.close($0) })
        XCTAssertTrue(WorkerEventLog().wait { _ in crashed.object == nil }, "the crashed channel was never freed")
        XCTAssertTrue(WorkerEventLog().wait { _ in hung.object == nil }, "the killed channel was never freed")
    }

    // The core keeps nothing of a guest's runs but its record: after launch and terminate
    // cycles every channel it was given has been freed, the event loop watches none of them and the
    // freezer has forgotten every worker.
    func testLaunchAndTerminateCyclesThroughTheCoreLeaveNoChannel() throws {
        let registrations = HostEventLoop.shared.registrationCount
        let opener = WeakChannels(host.opener)
        let core = HostCore(
            opener: opener, clock: DispatchHostClock(queue: host.hostQueue), hostQueue: host.hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: host.guestsDirectory, emit: { _ in })
        let path = try GuestFixtures.library("minimal_guest.c")
        for _ in 0..<10 { core.launchAndTerminate(path, on: host.hostQueue) }
        XCTAssertEqual(opener.count, 10)
        XCTAssertTrue(WorkerEventLog().wait { _ in opener.alive == 0 }, "\(opener.alive) of 10 channels never freed")
        XCTAssertEqual(HostEventLoop.shared.registrationCount, registrations)
        XCTAssertEqual(host.freezer.adoptedCount, 10)
        XCTAssertEqual(host.freezer.releasedCount, 10, "the freezer forgot every worker")
    }

    // CONTRACT X1: each file that is not a loadable guest is refused with the cause the
    // in-process loader names, whether the host or the worker finds it.
    func testLoadRefusalsHaveTheInProcessCauses() throws {
        let paths = [
            GuestFixtures.path("missing.so"),
            try GuestFixtures.file("worker-notes.txt", bytes: Array("just text\n".utf8)),
            try GuestFixtures.guestWithMissingDependency(),
            try GuestFixtures.library("unresolved_symbol.c"),
            try GuestFixtures.library("no_entry.c"),
            try GuestFixtures.library(
                "minimal_guest.c", name: "abi-2.0", flags: ["-DFIXTURE_ABI_MAJOR=2", "-DFIXTURE_ABI_MINOR=0"]),
            try GuestFixtures.library(
                "minimal_guest.c", name: "abi-0.9", flags: ["-DFIXTURE_ABI_MAJOR=0", "-DFIXTURE_ABI_MINOR=9"]),
            try GuestFixtures.library(
                "minimal_guest.c", name: "descriptor-null-descriptor", flags: ["-DFIXTURE_NULL_DESCRIPTOR"]),
            try GuestFixtures.library(
                "minimal_guest.c", name: "descriptor-small-descriptor", flags: ["-DFIXTURE_STRUCT_SIZE=16"]),
            try GuestFixtures.library(
                "minimal_guest.c", name: "descriptor-bad-utf8-name", flags: ["-DFIXTURE_NAME=\"\\xff\\xfe\""]),
            try GuestFixtures.library("minimal_guest.c", name: "descriptor-null-init", flags: ["-DFIXTURE_NULL_INIT"]),
        ]
        let worker = try WorkerExecutable.locate()
        for path in paths {
            let expected = try XCTUnwrap(refusal { () throws(LoadError) in try GuestLibrary.inspect(path: path) })
            XCTAssertEqual(try host.open(path).failure, expected, path)
            XCTAssertEqual(
                refusal { () throws(LoadError) in try WorkerInspector.inspect(path: path, workerPath: worker) },
                expected, path)
        }
        XCTAssertEqual(ProcessTable.zombieChildren(), [])
    }

    // CONTRACT X1: a guest of a newer minor of the host's major (1.9) loads in a worker and runs,
    // as in-process: the host refuses only another major.
    func testGuestOfANewerMinorLoadsAndRuns() throws {
        let events = WorkerEventLog()
        let channel = try open(
            try GuestFixtures.library(
                "minimal_guest.c", name: "abi-1.9-logs", flags: ["-DFIXTURE_ABI_MINOR=9", "-DFIXTURE_LOG_LAUNCH"]),
            events: events)
        XCTAssertEqual(host.send(M.launch, to: channel), .success(0))
        XCTAssertEqual(events.logLines, ["launched on a host of ABI \(ABIVersion.current)"])
    }

    // CONTRACT A2 X1: init's error is reported by name and deinit is not called (the fixture's
    // would abort, and the worker say so); the id is free again.
    func testInitFailureIsReportedAndTheIdIsFreeAgain() throws {
        let failing = try GuestFixtures.library(
            "minimal_guest.c", name: "init-fails",
            flags: ["-DFIXTURE_INIT_STATUS=APPHOST_ERROR_GUEST_FAILED", "-DFIXTURE_DEINIT_ABORTS"])
        let failure = try host.open(failing).failure
        XCTAssertEqual(failure, LoadError(path: failing, cause: .initFailed(status: 7, name: "guest_failed")))
        XCTAssertEqual(failure?.description, "\(failing): init failed with status 7 (guest_failed)")
        host.close(try host.channel(try GuestFixtures.library("minimal_guest.c")))

        let noCallbacks = try GuestFixtures.library(
            "minimal_guest.c", name: "no-app-callbacks", flags: ["-DFIXTURE_NO_APP_CALLBACKS"])
        XCTAssertEqual(
            try host.open(noCallbacks).failure?.cause,
            .invalidDescriptor("query(\"apphost.guest.app/1\") returned NULL: every guest must provide app callbacks"))
    }

    // A guest id runs once per host, as in-process: the second launch is refused before its init.
    func testSecondLoadOfTheSameGuestIsRefusedUntilTheFirstCloses() throws {
        let path = try observable()
        let first = try host.channel(path)
        XCTAssertEqual(try host.open(path).failure?.cause, .alreadyLoaded("org.apphost.fixtures.observable"))
        host.close(first)
        _ = try open(path)
    }

    // MARK: Suspension (CONTRACT B7)

    // B7: suspension freezes the whole process once the calls sent before have returned;
    // messages sent meanwhile wait without blocking anyone and run after the thaw, in order.
    func testMessagesSentWhileSuspendedAreHeldAndDeliveredInOrderAfterResume() throws {
        let events = WorkerEventLog()
        let channel = try open(try observable(), events: events)
        let launched = Mutex(false)
        channel.send(M.launch) { _ in launched.withLock { $0 = true } }
        XCTAssertTrue(isSuccess(host.suspend(channel)))
        XCTAssertTrue(launched.withLock { $0 }, "suspended only after the calls sent before returned")
        XCTAssertEqual(ProcessTable.threadStates(of: channel.pid).filter { $0 != "T" }, [], "every thread stopped")

        let replies = Mutex<[Int]>([])
        let start = Date()
        for index in 0..<200 {
            channel.send(M.memoryWarning) { _ in replies.withLock { $0.append(index) } }
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "sending never waits for a frozen guest")
        host.settle()
        usleep(200_000)
        XCTAssertEqual(replies.withLock { $0 }, [], "a suspended guest runs nothing")

        XCTAssertTrue(isSuccess(host.resume(channel)))
        XCTAssertTrue(events.wait { _ in replies.withLock { $0.count } == 200 })
        XCTAssertEqual(replies.withLock { $0 }, Array(0..<200))
        XCTAssertEqual(events.logLines.filter { $0 == "callback did_receive_memory_warning" }.count, 200)
        XCTAssertEqual(host.freezer.calls(for: channel.pid), ["adopt", "freeze", "thaw"])
    }

    // A worker that stops reading (here stopped behind the channel's back) fills its socket:
    // the host goes on queueing without blocking, and everything arrives, in order, once it reads.
    func testAWorkerThatStopsReadingNeverBlocksTheHost() throws {
        let channel = try open(try observable())
        _ = host.sendAll([M.launch], to: channel)
        XCTAssertEqual(kill(channel.pid, SIGSTOP), 0)
        defer { kill(channel.pid, SIGCONT) }
        let restoration = Data(repeating: 0x61, count: 256 * 1024)
        let replies = Mutex<[Int]>([])
        let start = Date()
        for index in 0..<64 {  // 16 MiB: far more than a socket buffer
            channel.send(M.connect(SceneHandle(index + 1), restoration: restoration)) { _ in
                replies.withLock { $0.append(index) }
            }
        }
        host.settle()
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "neither the sender nor the host queue waited")
        XCTAssertEqual(replies.withLock { $0 }, [])
        XCTAssertEqual(kill(channel.pid, SIGCONT), 0)
        XCTAssertTrue(WorkerEventLog().wait(timeout: 20) { _ in replies.withLock { $0.count } == 64 })
        XCTAssertEqual(replies.withLock { $0 }, Array(0..<64))
    }

    // A3: closing a suspended guest kills its worker: no will_terminate, no deinit.
    func testClosingASuspendedGuestKillsItWithoutCallbacks() throws {
        let events = WorkerEventLog()
        let opened = try XCTUnwrap(try host.open(try observable(), events: events).success)
        let channel = try XCTUnwrap(opened.channel as? WorkerChannel)
        _ = host.sendAll([M.launch], to: channel)
        XCTAssertTrue(isSuccess(host.suspend(channel)))
        let lateReply = Mutex<GuestReply?>(nil)
        channel.send(M.terminate) { reply in lateReply.withLock { $0 = reply } }
        host.close(channel)
        XCTAssertEqual(events.logLines, ["callback did_finish_launching"], "no callback after the suspension")
        XCTAssertEqual(lateReply.withLock { $0 }, .failure(.closed))
        XCTAssertEqual(events.deaths, [], "a kill on close is no crash")
        XCTAssertNil(ProcessTable.state(of: channel.pid), "reaped")
        XCTAssertEqual(host.freezer.calls(for: channel.pid).last, "release")
    }

    // MARK: Crashes (CONTRACT X2)

    // X2: a guest that dies while loading (a library constructor, init) is reported with its
    // cause as a load error; nothing of it is left running.
    func testDeathWhileLoadingIsALoadErrorWithItsCause() throws {
        let cases: [(name: String, flags: [String], cause: String)] = [
            ("constructor-segv", ["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=1"], "killed by SIGSEGV"),
            ("constructor-exit", ["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=3"], "exited with status 3"),
            ("init-segv", ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=1"], "killed by SIGSEGV"),
            ("init-abort", ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=2"], "killed by SIGABRT"),
            ("init-exit", ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=3"], "exited with status 3"),
        ]
        for (name, flags, cause) in cases {
            let path = try dying(flags, name: name)
            let failure = try host.open(path).failure
            XCTAssertEqual(failure, LoadError(path: path, cause: .guestCrashed(cause)), name)
            XCTAssertEqual(failure?.description, "\(path): the guest crashed while loading: \(cause)")
        }
        let worker = try WorkerExecutable.locate()
        let constructor = try dying(["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=1"], name: "constructor-segv")
        XCTAssertEqual(
            refusal { () throws(LoadError) in try WorkerInspector.inspect(path: constructor, workerPath: worker) }?
                .cause,
            .guestCrashed("killed by SIGSEGV"))
        XCTAssertEqual(ProcessTable.zombieChildren(), [])
        XCTAssertEqual(host.freezer.adoptedCount, host.freezer.releasedCount)
    }

    // X2 A2: a constructor or an init that never returns is killed after the load timeout.
    func testLoadThatNeverFinishesTimesOut() throws {
        host = try WorkerTestHost(loadTimeout: .seconds(1))
        for (name, flags, step) in [
            ("constructor-hang", ["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=4"], "loading the library"),
            ("init-hang", ["-DFIXTURE_DIE_IN_INIT", "-DFIXTURE_HOW=4"], "init"),
        ] {
            let path = try dying(flags, name: name)
            let start = Date()
            XCTAssertEqual(
                try host.open(path).failure,
                LoadError(path: path, cause: .timedOut("\(step) did not finish within 1 s")))
            XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        }
        let hang = try dying(["-DFIXTURE_DIE_IN_CONSTRUCTOR", "-DFIXTURE_HOW=4"], name: "constructor-hang")
        let start = Date()
        let inspected = refusal { () throws(LoadError) in
            try WorkerInspector.inspect(path: hang, workerPath: try! WorkerExecutable.locate(), timeout: .seconds(1))
        }
        XCTAssertEqual(inspected?.cause, .timedOut("loading the library did not finish within 1 s"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(ProcessTable.zombieChildren(), [])
    }

    // X2: a guest that dies in a callback: the pending calls fail with the cause (the first is
    // the one it died in), then `.died` reports it once; what it saved before arrived; later
    // sends fail; the host and a guest in another worker go on.
    func testDeathInACallbackIsReportedWithItsCause() throws {
        let bystanderEvents = WorkerEventLog()
        let bystander = try open(try observable(), events: bystanderEvents)
        for (how, cause) in [(1, "killed by SIGSEGV"), (2, "killed by SIGABRT"), (3, "exited with status 3")] {
            let path = try dying(
                ["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=\(how)"], name: "callback-\(how)")
            let events = WorkerEventLog()
            let channel = try host.channel(path, events: events)
            let deathsAtFirstFailure = Mutex<[String]?>(nil)
            channel.send(M.launch) { _ in }
            channel.send(M.connect(1)) { _ in }
            channel.send(M.memoryWarning) { _ in deathsAtFirstFailure.withLock { $0 = events.deaths } }
            let replies = host.sendAll([M.memoryWarning, M.launch], to: channel)
            XCTAssertEqual(replies.map(\.reply), [.failure(.crashed(cause)), .failure(.crashed(cause))], cause)
            XCTAssertEqual(deathsAtFirstFailure.withLock { $0 }, [], "the replies fail before the death is reported")
            XCTAssertTrue(events.wait { $0.deaths == [cause] }, "\(events.deaths)")
            host.settle()
            XCTAssertEqual(events.deaths, [cause], "reported once")
            XCTAssertEqual(events.saves, ["scene 1: saved in will_connect"], "what it saved before survives")
            XCTAssertEqual(host.send(M.memoryWarning, to: channel), .failure(.crashed(cause)))
            host.close(channel)
            XCTAssertNil(ProcessTable.state(of: channel.pid), "reaped")
            XCTAssertEqual(host.send(M.memoryWarning, to: bystander), .success(0), "the other guest runs on")
        }
        XCTAssertEqual(bystanderEvents.deaths, [])
    }

    // X2: the worker's death is noticed even when its socket stays open, here held by a child
    // the guest forked.
    func testDeathIsNoticedWhileAForkedChildHoldsTheSocket() throws {
        let events = WorkerEventLog()
        let channel = try host.channel(
            try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_FORK_FIRST"], name: "callback-fork"), events: events)
        let start = Date()
        XCTAssertEqual(host.send(M.memoryWarning, to: channel), .failure(.crashed("killed by SIGSEGV")))
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "not when the child lets go of the socket")
        XCTAssertTrue(events.wait { $0.deaths == ["killed by SIGSEGV"] })
        host.close(channel)
    }

    // X2: without a cgroup (the freezer here has none, as SIGSTOP), what the guest started in its
    // worker's process group ends with the worker, whether it closes or crashes. (An orphan that
    // left the group with setsid() escapes this fallback: the cgroup's kill is for that.)
    func testTheWorkersProcessGroupEndsWithItWithoutACgroup() throws {
        for crash in [false, true] {
            let events = WorkerEventLog()
            let path = try GuestFixtures.library(
                "forking_guest.c", name: crash ? "forking-crash" : "forking",
                flags: crash ? ["-DFIXTURE_CRASH", "-DFIXTURE_ID=\"org.apphost.fixtures.forking-crash\""] : [])
            let channel = try host.channel(path, events: events)
            XCTAssertEqual(host.send(M.launch, to: channel), .success(0))
            let forked = try XCTUnwrap(events.logLines.first { $0.hasPrefix("forked child ") })
            let pids = forked.split(separator: " ").compactMap { pid_t($0) }
            XCTAssertEqual(pids.count, 2, forked)
            defer { for pid in pids where pid > 0 { kill(pid, SIGKILL) } }
            let child = pids[0]
            XCTAssertEqual(getpgid(child), channel.pid, "the child is in the worker's process group")
            if crash {
                XCTAssertEqual(host.send(M.memoryWarning, to: channel), .failure(.crashed("killed by SIGSEGV")))
            }
            host.close(channel)
            let gone = try Polling.until(timeout: .seconds(2)) { ProcessStat.of(pid: child)?.hasExited ?? true }
            XCTAssertTrue(gone, "the worker's child \(child) outlived it (crash: \(crash))")
        }
    }

    // B5 X2: a guest stuck in a callback is killed where it stands, and that ends like a crash.
    func testForceStopKillsAHungGuest() throws {
        let events = WorkerEventLog()
        let channel = try host.channel(
            try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], name: "callback-hang"), events: events)
        let hung = Mutex<GuestReply?>(nil)
        channel.send(M.memoryWarning) { reply in hung.withLock { $0 = reply } }
        XCTAssertTrue(events.wait { $0.logLines.contains("callback did_receive_memory_warning") })
        XCTAssertTrue(isSuccess(host.forceStop(channel, freezing: false)))
        XCTAssertTrue(events.wait { $0.deaths == ["killed by SIGKILL"] })
        XCTAssertEqual(hung.withLock { $0 }, .failure(.crashed("killed by SIGKILL")))
        host.close(channel)
    }

    // B5 B7: a guest stuck in a callback can be frozen where it stands, then closed (A3: killed).
    func testForceStopFreezesAHungGuestWhichCloseThenKills() throws {
        let events = WorkerEventLog()
        let channel = try host.channel(
            try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], name: "callback-hang"), events: events)
        let hung = Mutex<GuestReply?>(nil)
        channel.send(M.memoryWarning) { reply in hung.withLock { $0 = reply } }
        XCTAssertTrue(events.wait { $0.logLines.contains("callback did_receive_memory_warning") })
        XCTAssertTrue(isSuccess(host.forceStop(channel, freezing: true)))
        XCTAssertEqual(ProcessTable.state(of: channel.pid), "T")
        host.close(channel)
        XCTAssertEqual(hung.withLock { $0 }, .failure(.closed))
        XCTAssertEqual(events.deaths, [])
        XCTAssertNil(ProcessTable.state(of: channel.pid))
    }

    // A3: a guest that does not stop within the stop timeout (stuck in will_terminate) is killed.
    func testCloseKillsAGuestThatDoesNotStopInTime() throws {
        host = try WorkerTestHost(stopTimeout: .milliseconds(500))
        let channel = try host.channel(
            try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=4"], name: "callback-hang"))
        channel.send(M.memoryWarning) { _ in }
        let start = Date()
        host.close(channel)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
        XCTAssertNil(ProcessTable.state(of: channel.pid))
    }

    // X2: launching and crashing a guest 50 times leaks no descriptor and leaves no zombie.
    func testFiftyCrashesLeakNoDescriptorAndLeaveNoZombie() throws {
        let path = try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=1"], name: "callback-1")
        func crashOnce() throws {
            let events = WorkerEventLog()
            let channel = try host.channel(path, events: events)
            XCTAssertEqual(host.send(M.memoryWarning, to: channel), .failure(.crashed("killed by SIGSEGV")))
            XCTAssertTrue(events.wait { $0.deaths == ["killed by SIGSEGV"] })
            host.close(channel)
        }
        try crashOnce()  // whatever the first spawn sets up once for good
        let descriptors = ProcessTable.openDescriptorCount()
        for _ in 0..<50 { try crashOnce() }
        host.settle()
        XCTAssertTrue(
            WorkerEventLog().wait { _ in ProcessTable.openDescriptorCount() == descriptors },
            "descriptors: \(ProcessTable.openDescriptorCount()), before: \(descriptors)")
        XCTAssertEqual(ProcessTable.zombieChildren(), [])
        XCTAssertEqual(host.freezer.adoptedCount, 51)
        XCTAssertEqual(host.freezer.releasedCount, 51)
    }

    // X2 through the core: the crash is an event naming the callback it happened in and the
    // cause; the guest is notRunning with reason crash, and its scene keeps its saved state.
    func testTheCoreReportsACrashWithTheCallbackAndKeepsTheSavedState() throws {
        let path = try dying(["-DFIXTURE_DIE_IN_CALLBACK", "-DFIXTURE_HOW=1"], name: "callback-1")
        let recorded = Mutex<[HostEvent]>([])
        let core = HostCore(
            opener: host.opener, clock: DispatchHostClock(queue: host.hostQueue), hostQueue: host.hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: host.guestsDirectory, emit: { event in recorded.withLock { $0.append(event) } })
        let launched = DispatchSemaphore(value: 0)
        host.hostQueue.async { core.launch(path: path, foreground: true) { _ in launched.signal() } }
        XCTAssertEqual(launched.wait(timeout: .now() + 10), .success)
        let crashed: () -> HostEvent? = {
            recorded.withLock { $0.first { $0.kind == .error && $0.reason == .crash } }
        }
        XCTAssertTrue(WorkerEventLog().wait { _ in crashed() != nil })
        XCTAssertEqual(crashed()?.message, "crashed in will_enter_foreground: killed by SIGSEGV")
        let status = host.hostQueue.sync { core.status() }
        let guest = try XCTUnwrap(status.guests.first)
        XCTAssertEqual(guest.appState, .notRunning)
        XCTAssertEqual(guest.lastReason, .crash)
        XCTAssertEqual(guest.scenes.map(\.savedBytes), ["saved in will_connect".utf8.count])
    }

    // MARK: The background extension (CONTRACT B1 B2 B3 B7)

    // End to end through a worker: what the guest does with apphost.background/1 arrives as
    // GuestEvents on the host queue, in order, before the reply of the callback it happened in;
    // the calls the host sends back run the guest's handler, timers and work.
    func testBackgroundEventsArriveAndTheCallsRunTheGuestsCode() throws {
        let events = WorkerEventLog()
        let channel = try open(try BackgroundFixture.library(name: "background-channel"), events: events)
        let eventsAtReply = Mutex<[GuestEvent]>([])
        let replied = DispatchSemaphore(value: 0)
        channel.send(M.launch) { _ in }
        channel.send(commands(1, "begin upload;timer 5 0;repeat 2 2;async a")) { _ in
            eventsAtReply.withLock { $0 = Self.background(events.events) }
            replied.signal()
        }
        XCTAssertEqual(replied.wait(timeout: .now() + 10), .success)
        let scheduled: [GuestEvent] = [
            .taskBegan(1, name: "upload"), .timerScheduled(1, delay: .milliseconds(5), interval: nil),
            .timerScheduled(2, delay: .milliseconds(2), interval: .milliseconds(2)), .workSubmitted(1),
        ]
        XCTAssertEqual(eventsAtReply.withLock { $0 }, scheduled, "before the reply of the callback")

        // The host's side, as HostCore plays it: run the work and timers, expire the task (B3),
        // then say no background work is possible (B1).
        let calls: [GuestCall] = [
            .runWork(1), .fireTimer(1), .fireTimer(2), .fireTimer(2), .expireTask(1), .backgroundTime(.zero),
        ]
        let replies = host.sendAll(
            calls.map { GuestMessage(call: $0, appState: .background) } + [commands(2, "begin late;time")], to: channel)
        XCTAssertEqual(replies.map(\.reply), Array(repeating: .success(0), count: calls.count + 1))
        XCTAssertTrue(replies.allSatisfy { $0.queue == "host" })
        XCTAssertEqual(
            events.logLines,
            [
                "init begin=0 timer=invalid_state async=invalid_state time=unlimited", "begin upload = 1", "timer = 1",
                "timer = 2", "async = ok", "async a", "fired 1 1", "fired 2 1",
                "fired 2 2", "cancel 2 = ok", "expired 1", "end 1 = ok", "begin late = 0", "time = 0.000",
            ])
        XCTAssertEqual(Self.background(events.events), scheduled + [.timerCancelled(2), .taskEnded(1)])
        XCTAssertTrue(events.allOnHostQueue)
    }

    // End to end through HostCore: the guest starts a task, timers and work as it launches; the
    // core hears of them from the worker, records the task, fires the timers and runs the work,
    // whose logs come back as events.
    func testTheCoreRunsTheGuestsTimersAndWork() throws {
        let path = try BackgroundFixture.library(
            name: "background-core",
            flags: ["-DFIXTURE_LAUNCH_COMMANDS=\"begin launch-work;timer 10 0;repeat 5 3;async hello;end 1\""])
        let recorded = Mutex<[HostEvent]>([])
        let core = HostCore(
            opener: host.opener, clock: DispatchHostClock(queue: host.hostQueue), hostQueue: host.hostQueue,
            sessionIDs: RandomSessionIDs(),
            guestsDirectory: host.guestsDirectory, emit: { event in recorded.withLock { $0.append(event) } })
        let launched = DispatchSemaphore(value: 0)
        host.hostQueue.async { core.launch(path: path, foreground: true) { _ in launched.signal() } }
        XCTAssertEqual(launched.wait(timeout: .now() + 10), .success)
        // The guest's own lines: not init's, nor its scene's session id taken for commands.
        let logs: () -> [String] = {
            recorded.withLock { $0.filter { $0.kind == .log }.compactMap(\.message) }
                .filter { !$0.hasPrefix("init ") && !$0.hasPrefix("unknown command ") }
        }
        XCTAssertTrue(WorkerEventLog().wait { _ in logs().count == 11 }, "\(logs())")
        let lines = logs()
        XCTAssertEqual(
            Array(lines.prefix(5)), ["begin launch-work = 1", "timer = 1", "timer = 2", "async = ok", "end 1 = ok"])
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("fired 2 ") || $0.hasPrefix("cancel ") },
            ["fired 2 1", "fired 2 2", "fired 2 3", "cancel 2 = ok"], "the repeating timer, until it cancels itself")
        XCTAssertEqual(
            Set(lines.dropFirst(5)).subtracting(["fired 2 1", "fired 2 2", "fired 2 3", "cancel 2 = ok"]),
            ["fired 1 1", "async hello"])
        let tasks = recorded.withLock { $0.filter { $0.kind == .taskBegun || $0.kind == .taskEnded } }
        XCTAssertEqual(tasks.map(\.kind), [.taskBegun, .taskEnded])
        XCTAssertEqual(tasks.map(\.name), ["launch-work", "launch-work"])
        let done = DispatchSemaphore(value: 0)
        host.hostQueue.async { core.shutdown { done.signal() } }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
    }

    // MARK: The scenes extension (CONTRACT S9 N1 N2 N3 S7)

    // End to end through a worker: a request_scene the guest makes inside perform_action reaches
    // the host's onEvent as .sceneRequested, before the action's reply; a later one, without a new
    // action, gets NO_ACTIVATION and reaches nobody. The other scenes calls and events cross too.
    func testRequestSceneInsidePerformActionReachesTheHost() throws {
        let events = WorkerEventLog()
        let channel = try open(try ScenesFixture.library(name: "scenes-channel"), events: events)
        XCTAssertEqual(host.send(scenesConnect(1, ""), to: channel), .success(0))

        let eventsAtReply = Mutex<[GuestEvent]>([])
        let replied = DispatchSemaphore(value: 0)
        let action = GuestMessage(
            call: .performAction(
                1, name: "request here 1 1 hello", payload: Data("p".utf8), activation: .seconds(5), token: 7),
            appState: .active, sceneState: .foregroundActive)
        channel.send(action) { reply in
            XCTAssertEqual(reply, .success(0))
            eventsAtReply.withLock { $0 = events.events }
            replied.signal()
        }
        XCTAssertEqual(replied.wait(timeout: .now() + 10), .success)
        let requested = GuestEvent.sceneRequested(
            activation: 7, from: 1, role: .auxiliary, style: .standard, state: Data("hello".utf8), request: 1)
        XCTAssertTrue(eventsAtReply.withLock { $0 }.contains(requested), "before the reply")

        let replies = host.sendAll(
            [
                scenesConnect(3, "keep"),
                scenesConnect(
                    2, "request 1 0 0 again;progress 1 -1;present 1 0 Sheet;dismiss 1 1;notify Hi;activate keep 0"),
                GuestMessage(
                    call: .sceneSize(1, SceneSize(width: 640, height: 480, sizeClass: .compact)), appState: .active),
                GuestMessage(call: .didDiscard(sessionID: "closed"), appState: .active),
            ], to: channel)
        XCTAssertEqual(replies.map(\.reply), [.success(0), .success(0), .success(0), .success(0)])
        host.settle()
        XCTAssertEqual(
            events.events.filter { if case .log = $0 { false } else if case .identified = $0 { false } else { true } },
            [
                requested, .loadingProgress(1, .indeterminate), .modalPresented(1, 1, style: .sheet, title: "Sheet"),
                .modalDismissed(1, 1), .notificationPosted(title: "Hi", body: ""),
                .sessionActivationRequested(sessionID: "keep", style: .automatic),
            ])
        XCTAssertEqual(
            events.logLines.filter { !$0.hasPrefix("init ") },
            [
                "perform_action 1 request here 1 1 hello payload=p", "request = ok", "request = no_activation",
                "progress -1 = ok", "present Sheet = 1", "dismiss 1 = ok", "notify Hi = ok", "activate keep = ok",
                "did_change_size 1 640x480 class=0 size=16 query=640x480", "did_discard closed",
            ])
        XCTAssertTrue(events.allOnHostQueue)

        // A payload past the ABI's limit, even past a frame's, is refused by the guest's runtime;
        // the worker lives on.
        let huge = GuestMessage(
            call: .performAction(1, name: "tap", payload: Data(count: 2 << 20), activation: .seconds(5), token: 7),
            appState: .active)
        XCTAssertEqual(host.send(huge, to: channel), .success(Int32(APPHOST_ERROR_TOO_LARGE.rawValue)))
        XCTAssertEqual(host.send(scenesConnect(3, ""), to: channel), .success(0))
    }

    // MARK: Helpers

    /// A foreground scene connecting, whose session id is commands for the scenes fixture.
    private func scenesConnect(_ scene: SceneHandle, _ commands: String) -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: commands, role: .primary, initialState: .foregroundInactive,
                    restorationData: nil)), appState: .active, sceneState: .foregroundActive)
    }

    private func observable() throws -> String { try GuestFixtures.library("observable_guest.c") }

    /// A scene connection whose session id is commands for the background fixture (its header).
    private func commands(_ scene: SceneHandle, _ commands: String) -> GuestMessage {
        GuestMessage(
            call: .sceneWillConnect(
                SceneConnection(
                    scene: scene, sessionID: commands, role: .primary, initialState: .background,
                    restorationData: nil)), appState: .background, sceneState: .unattached)
    }

    /// The events of the background extension, in order.
    private static func background(_ events: [GuestEvent]) -> [GuestEvent] {
        events.filter {
            switch $0 {
            case .taskBegan, .taskEnded, .timerScheduled, .timerCancelled, .workSubmitted: true
            default: false
            }
        }
    }

    /// Plugins/Fixtures/dying_guest.c with `flags`, under an id of its own.
    private func dying(_ flags: [String], name: String) throws -> String {
        try GuestFixtures.library(
            "dying_guest.c", name: "dying-\(name)", flags: flags + ["-DFIXTURE_ID=\"org.apphost.fixtures.\(name)\""])
    }

    private func open(_ path: String, events: WorkerEventLog = WorkerEventLog()) throws -> WorkerChannel {
        let channel = try host.channel(path, events: events)
        opened.append(channel)
        return channel
    }

    /// `channel`, held weakly: the caller keeps no strong reference.
    private func weakly(_ channel: WorkerChannel) -> Weak<WorkerChannel> { Weak(channel) }

    private func refusal(_ body: () throws(LoadError) -> GuestDescriptor) -> LoadError? {
        do throws(LoadError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    private func isSuccess(_ result: Result<Void, ChannelFailure>?) -> Bool {
        if case .success = result { return true }
        XCTFail("expected success, got \(String(describing: result))")
        return false
    }
}

/// A weak reference, for checking that an object was freed.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    // Read and written on the test's thread.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

extension HostCore {
    /// Launches `path` in the foreground on `hostQueue`, then terminates it, and waits for both
    /// (20 s at most).
    func launchAndTerminate(
        _ path: String, on hostQueue: DispatchQueue, file: StaticString = #filePath, line: UInt = #line
    ) {
        let done = DispatchSemaphore(value: 0)
        hostQueue.async {
            self.launch(path: path, foreground: true) { result in
                guard case .success(let descriptor) = result else {
                    done.signal()
                    return
                }
                self.terminate(descriptor.id) { _ in done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, file: file, line: line)
    }
}

/// Wraps an opener and keeps every channel it opened, weakly.
final class WeakChannels: GuestOpener, @unchecked Sendable {
    private let opener: any GuestOpener
    private let channels = Mutex<[Weak<AnyObject>]>([])

    init(_ opener: any GuestOpener) { self.opener = opener }

    /// How many channels it opened, and how many of them are still alive.
    var count: Int { channels.withLock { $0.count } }
    var alive: Int { channels.withLock { $0.filter { $0.object != nil }.count } }

    func open(
        path: String, guestsDirectory: String, hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        opener.open(path: path, guestsDirectory: guestsDirectory, hostQueue: hostQueue, onEvent: onEvent) { result in
            if case .success(let opened) = result { self.channels.withLock { $0.append(Weak(opened.channel)) } }
            completion(result)
        }
    }
}
