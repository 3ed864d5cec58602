import ApphostModel
import ApphostPolicyTesting
import XCTest

@testable import ApphostPolicy

/// A real-time audio thread whose render keeps missing its deadlines while it keeps a processor
/// busy is demoted, once, and the event stream names it; one that misses because it was starved
/// (idle meanwhile), or that is busy but keeps up, is not (issue 34, point 9; CONTRACT C13, X2).
final class RenderDeadlineTests: XCTestCase {
    private var host: CoreHarness!
    private var mixer: FakeAudioMixer!

    override func setUp() {
        mixer = FakeAudioMixer()
        host = CoreHarness(audioMixer: mixer)
    }

    private func launchPlaying(_ id: String, thread: Int32, busy: Duration? = nil) throws -> FakeGuest {
        let guest = host.opener.add(id, capabilities: [.backgroundAudio])
        guest.audioThreadCPUTime = busy
        host.run { $0.launch(path: id, foreground: true) }
        guest.emit(.audioConfigured(try AudioConfiguration(category: .playback, options: .mixWithOthers)))
        guest.emit(.audioActivationRequested(1))
        guest.emit(.audioThread(id: thread, realtime: true))
        guest.emit(.audioRendering(true))
        host.settle()
        return guest
    }

    /// One meter second: the mixer moved 100 periods; each guest's xruns and busy time so far.
    private var periods: UInt64 = 0
    private func second(_ sessions: [(FakeGuest, xruns: UInt64, busy: Duration)]) {
        periods += 100
        var reading = mixer.meterReading
        reading.output.periods = periods
        for (guest, xruns, busy) in sessions {
            guest.audioThreadCPUTime = busy
            reading.sessions[guest.descriptor.id] = AudioSessionMeter(
                level: .silence, framesRendered: periods * 480, xruns: xruns)
        }
        mixer.meterReading = reading
        host.advance(by: .seconds(1))
    }

    // X2, C13: the spinning render is demoted after two strikes in a row and the event names it;
    // the healthy session it starved, which missed as many periods but was idle, is not.
    func testX2ABusyLateRenderIsDemotedAndTheStarvedOneIsNot() throws {
        let spinner = try launchPlaying("spinner", thread: 41)
        let healthy = try launchPlaying("healthy", thread: 42)
        second([(spinner, 0, .zero), (healthy, 0, .zero)])  // the first reading: nothing to compare
        second([(spinner, 40, .milliseconds(990)), (healthy, 40, .milliseconds(10))])
        XCTAssertTrue(spinner.demotedThreads.isEmpty, "one strike is not enough")
        second([(spinner, 80, .milliseconds(1980)), (healthy, 80, .milliseconds(20))])
        XCTAssertEqual(spinner.demotedThreads, [41])
        XCTAssertEqual(healthy.demotedThreads, [])
        let demoted = host.events.of(.audioDemoted)
        XCTAssertEqual(demoted.map(\.guest), ["spinner"])
        XCTAssertEqual(demoted.first?.name, "ordinary")
        XCTAssertEqual(
            demoted.first?.message,
            "thread 41 missed 80 periods over 2 s, busy 99% of a core at real-time priority; "
                + "it runs at ordinary priority from now on")

        // Once: it goes on missing, ordinary now, and is not demoted again.
        second([(spinner, 180, .milliseconds(2970)), (healthy, 80, .milliseconds(30))])
        second([(spinner, 280, .milliseconds(3960)), (healthy, 80, .milliseconds(40))])
        XCTAssertEqual(spinner.demotedThreads, [41])
        XCTAssertEqual(host.events.of(.audioDemoted).count, 1)
    }

    // X7 (issue 37): a worker that demoted its audio thread itself at the real-time limit (a render
    // that spins) says so; the event names the limit at once, and the watch demotes nothing
    // after, however late the thread goes on.
    func testX7AThreadTheWorkerDemotedAtTheRealtimeLimitIsNamedAndNotDemotedAgain() throws {
        let spinner = try launchPlaying("spinner", thread: 41)
        second([(spinner, 0, .zero)])
        spinner.emit(.audioThreadOverran(id: 41))
        host.settle()
        let demoted = host.events.of(.audioDemoted)
        XCTAssertEqual(demoted.map(\.guest), ["spinner"])
        XCTAssertEqual(demoted.first?.name, "ordinary")
        XCTAssertEqual(
            demoted.first?.message,
            "thread 41 ran at real-time priority for 200 ms without sleeping once (its render spins; "
                + "RLIMIT_RTTIME's soft limit); it runs at ordinary priority from now on")
        second([(spinner, 80, .milliseconds(990))])
        second([(spinner, 180, .milliseconds(1980))])
        second([(spinner, 280, .milliseconds(2970))])
        XCTAssertEqual(spinner.demotedThreads, [], "the host has nothing left to demote")
        XCTAssertEqual(host.events.of(.audioDemoted).count, 1)
    }

    // The watch starts with the thread, where its CPU time can be read then: the second meter
    // reading after it demotes, not the third.
    func testTheWatchStartsWithTheThread() throws {
        let spinner = try launchPlaying("spinner", thread: 9, busy: .zero)
        second([(spinner, 50, .milliseconds(900))])
        XCTAssertEqual(spinner.demotedThreads, [])
        second([(spinner, 100, .milliseconds(1800))])
        XCTAssertEqual(spinner.demotedThreads, [9])
        XCTAssertEqual(host.events.of(.audioDemoted).map(\.guest), ["spinner"])
    }

    // A busy render that keeps up, and a strike that is not followed by another, demote nothing.
    func testABusyRenderThatKeepsUpOrMissesOnceIsNotDemoted() throws {
        let heavy = try launchPlaying("heavy", thread: 7)
        second([(heavy, 0, .zero)])
        second([(heavy, 0, .milliseconds(800))])
        second([(heavy, 5, .milliseconds(1600))])  // a strike
        second([(heavy, 5, .milliseconds(2400))])  // keeping up again: strikes start over
        second([(heavy, 9, .milliseconds(3200))])  // a strike
        second([(heavy, 9, .milliseconds(4000))])
        XCTAssertEqual(heavy.demotedThreads, [])
        XCTAssertTrue(host.events.of(.audioDemoted).isEmpty)
    }

    // The watch alone, on the manual clock's readings: a reading that goes backwards (a new
    // thread) starts over.
    func testTheWatchStartsOverWhenItsCountersGoBack() {
        var watch = RenderDeadlineWatch()
        let policy = RenderDeadlinePolicy(busyShare: 0.5, strikes: 2)
        XCTAssertNil(watch.observe(xruns: 0, busy: .zero, at: .seconds(1), policy: policy))
        XCTAssertNil(watch.observe(xruns: 50, busy: .milliseconds(900), at: .seconds(2), policy: policy))
        XCTAssertNil(watch.observe(xruns: 0, busy: .zero, at: .seconds(3), policy: policy), "went back")
        XCTAssertNil(watch.observe(xruns: 50, busy: .milliseconds(900), at: .seconds(4), policy: policy))
        XCTAssertEqual(
            watch.observe(xruns: 100, busy: .milliseconds(1800), at: .seconds(5), policy: policy),
            RenderDeadlineWatch.Demotion(missed: 100, busyShare: 0.9, over: .seconds(2)))
        XCTAssertTrue(watch.demoted)
        XCTAssertNil(watch.observe(xruns: 200, busy: .milliseconds(2700), at: .seconds(6), policy: policy))
    }
}
