import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The audio sessions on their own (CONTRACT C5 to C10, C13, C14, B8, B9, X7): no core, no
/// channel, no mixer. A small driver arms the timers the part asks for on a manual clock and
/// hands their tokens back when they fall due, as the core does; everything else it says is
/// kept, in order, for the test to read. Guests are what the test says they are (`AudioFacts`).
final class AudioSessionsTests: XCTestCase {
    private let a = "org.test.a"
    private let b = "org.test.b"

    /// A guest running in the foreground that declares background audio.
    private static let shown = AudioFacts(
        life: GuestLife(phase: .running, hasChannel: true, suspension: .running), suspendedAutomatically: false,
        appState: .active, declaresBackgroundAudio: true)

    /// Carries out the part's timers on a manual clock; keeps the rest of what it says.
    private final class Driver: @unchecked Sendable {
        // Confined to the test's thread, as the manual clock is.
        var sessions: AudioSessions
        let clock = ManualClock()
        var facts: [String: AudioFacts] = [:]
        /// Every effect but the timers', in order.
        var said: [AudioEffect] = []
        private var armed: [AudioToken: any ScheduledAction] = [:]

        init(mixes: Bool = false, requests: FloodPolicy = .audioRequests) {
            sessions = AudioSessions(policy: AudioPolicy(), requests: requests, mixes: mixes)
        }

        var lookup: AudioSessions.Facts { { [facts] in facts[$0] } }

        func apply(_ effects: [AudioEffect]) {
            for effect in effects {
                switch effect {
                case .schedule(let token, let delay):
                    armed[token] = clock.schedule(after: delay) { [self] in
                        guard armed.removeValue(forKey: token) != nil else { return }
                        apply(sessions.tick(token, lookup))
                    }
                case .cancel(let token):
                    armed.removeValue(forKey: token)?.cancel()
                default:
                    said.append(effect)
                }
            }
        }

        /// What the part said since the last look.
        func take() -> [AudioEffect] {
            defer { said = [] }
            return said
        }

        /// The calls it said to deliver since the last look, each with its guest.
        func calls() -> [String] {
            take().flatMap { effect -> [String] in
                switch effect {
                case .deliver(let call, let id): ["\(id): \(call)"]
                case .deliverAll(let calls, let id): calls.map { "\(id): \($0)" }
                default: []
                }
            }
        }

        var pendingTimers: Int { armed.count }

        func launch(_ id: String, _ facts: AudioFacts = AudioSessionsTests.shown) {
            self.facts[id] = facts
            apply(sessions.launching(id))
        }

        func request(_ event: GuestEvent, from id: String) {
            apply(sessions.request(event, from: id, at: clock.uptime(), lookup))
        }

        /// `id` configured as `configuration` and active, playing when `rendering`.
        func play(
            _ id: String, _ configuration: AudioConfiguration, request: AudioRequestID = 1, rendering: Bool = true
        ) {
            self.request(.audioConfigured(configuration), from: id)
            self.request(.audioActivationRequested(request), from: id)
            if rendering { self.request(.audioRendering(true), from: id) }
        }

        func become(_ id: String, _ change: (inout AudioFacts) -> Void) {
            let before = facts[id]?.appState ?? .notRunning
            change(&facts[id, default: AudioSessionsTests.shown])
            apply(sessions.appStateChanged(id, from: before, lookup))
        }
    }

    private func call(_ id: String, _ call: GuestCall) -> String { "\(id): \(call)" }

    private func records(_ effects: [AudioEffect], _ kind: HostEvent.Kind) -> [String?] {
        effects.compactMap { effect in
            guard case .record(kind, _, _, let name, _) = effect else { return nil }
            return .some(name)
        }
    }

    // CONTRACT C5, C6: a non-mixing activation interrupts the other non-mixing session, which hears
    // so before the new one hears that it is active; from background a non-mixing session is
    // refused, with its reason, and stays inactive.
    func testC5C6ActivationInterruptsAndRefusalInBackground() throws {
        let driver = Driver()
        driver.launch(a)
        driver.launch(b)
        _ = driver.take()
        let playback = try AudioConfiguration(category: .playback)
        driver.play(a, playback)
        XCTAssertEqual(driver.calls(), [call(a, .audioActivationFinished(1, refusal: nil))])
        XCTAssertTrue(driver.sessions.arbiter.session(of: a).active)

        driver.play(b, playback, request: 2, rendering: false)
        XCTAssertEqual(
            driver.calls(),
            [call(a, .audioInterruptionBegan(.otherSession)), call(b, .audioActivationFinished(2, refusal: nil))])
        XCTAssertFalse(driver.sessions.arbiter.session(of: a).active, "C6: inactive before it hears of it")

        let c = "org.test.c"
        var background = Self.shown
        background.appState = .background
        driver.launch(c, background)
        _ = driver.take()
        driver.play(c, playback, request: 3, rendering: false)
        let said = driver.take()
        XCTAssertEqual(records(said, .audioRefused), ["nonMixingInBackground"])
        XCTAssertTrue(said.contains(.deliver(.audioActivationFinished(3, refusal: .nonMixingInBackground), to: c)))
        XCTAssertFalse(driver.sessions.arbiter.session(of: c).active)
    }

    // CONTRACT C6, C7: the operator's call interrupts every active session and refuses activations
    // until it ends; its end tells the interrupted ones, should-resume only for one that played.
    func testC6C7ACallInterruptsAndItsEndSaysShouldResume() throws {
        let driver = Driver()
        driver.launch(a)
        driver.launch(b)
        driver.play(a, try AudioConfiguration(category: .playback))
        driver.play(b, try AudioConfiguration(category: .ambient), request: 2, rendering: false)
        _ = driver.take()

        driver.apply(try driver.sessions.beginCall(driver.lookup))
        XCTAssertEqual(
            driver.calls(), [call(a, .audioInterruptionBegan(.call)), call(b, .audioInterruptionBegan(.call))])
        XCTAssertThrowsError(try driver.sessions.beginCall(driver.lookup), "a call is already under way")
        driver.request(.audioActivationRequested(3), from: b)
        XCTAssertEqual(driver.calls(), [call(b, .audioActivationFinished(3, refusal: .callInProgress))])

        driver.apply(try driver.sessions.endCall(shouldResume: true, driver.lookup))
        XCTAssertEqual(
            driver.calls(),
            [
                call(a, .audioInterruptionEnded(.call, shouldResume: true)),
                call(b, .audioInterruptionEnded(.call, shouldResume: false)),
            ], "C7: only the one that was playing should resume")
        XCTAssertThrowsError(try driver.sessions.endCall(shouldResume: false, driver.lookup), "no call under way")
    }

    // CONTRACT C8: a session that ducks others lowers the active ones while it is active; the event
    // stream says each change once, and the mixer hears the new gain (C13).
    func testC8DuckingWhileTheDuckingSessionIsActive() throws {
        let driver = Driver(mixes: true)
        driver.launch(a)
        driver.launch(b)
        driver.play(a, try AudioConfiguration(category: .playback))
        driver.apply(driver.sessions.streamAnswered(a, .success(0), driver.lookup))
        _ = driver.take()

        driver.play(b, try AudioConfiguration(category: .playback, options: .duckOthers), request: 2)
        var said = driver.take()
        XCTAssertEqual(records(said, .audioLevel), ["ducked"])
        XCTAssertTrue(said.contains(.setMix(a, AudioMix(mixed: true, gain: 0.1, recordsInput: false), announce: true)))
        XCTAssertTrue(driver.sessions.arbiter.level(of: a).ducked)

        driver.request(.audioDeactivated(notifyOthers: false), from: b)
        said = driver.take()
        XCTAssertEqual(records(said, .audioLevel), ["unducked"])
        XCTAssertTrue(said.contains(.setMix(a, AudioMix(mixed: true, gain: 1, recordsInput: false), announce: true)))
    }

    // CONTRACT B8, C14: a suspended guest's session is interrupted, and what it should hear waits,
    // coalesced: a route that changed and came back is no change at all; on resume it hears
    // the rest at once, then nothing more.
    func testB8C14AudioCallsWaitWhileSuspendedCoalesced() throws {
        let driver = Driver()
        driver.launch(a)
        driver.play(a, try AudioConfiguration(category: .playback))
        _ = driver.take()

        driver.become(a) {
            $0.suspension = .suspended
            $0.appState = .suspended
        }
        XCTAssertEqual(records(driver.said, .audioInterrupted), ["suspended"])
        XCTAssertEqual(driver.calls(), [], "held, not delivered")
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: true, driver.lookup))
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: false, driver.lookup))
        XCTAssertEqual(driver.calls(), [])

        driver.become(a) {
            $0.suspension = .running
            $0.appState = .background
        }
        driver.apply(driver.sessions.releaseHeld(a))
        XCTAssertEqual(driver.calls(), [call(a, .audioInterruptionBegan(.suspended))], "the route came back")
        XCTAssertEqual(driver.sessions.releaseHeld(a), [], "taken once")
    }

    // CONTRACT B9, B6: a player keeps its session in background; one the host suspended once its
    // interruption left it idle is woken when the interruption ends with should-resume; one the
    // operator suspended is not.
    func testB9AnAutomaticallySuspendedPlayerIsWokenToResume() throws {
        for automatic in [true, false] {
            let driver = Driver()
            driver.launch(a)
            driver.play(a, try AudioConfiguration(category: .playback))
            driver.become(a) { $0.appState = .background }
            XCTAssertTrue(driver.sessions.playsInBackground(a), "B9: it plays in background")
            driver.apply(try driver.sessions.beginCall(driver.lookup))
            XCTAssertFalse(driver.sessions.playsInBackground(a))
            XCTAssertTrue(driver.take().contains(.playsInBackgroundChanged(a)))

            driver.become(a) {
                $0.suspension = .suspended
                $0.suspendedAutomatically = automatic
                $0.appState = .suspended
            }
            driver.apply(try driver.sessions.endCall(shouldResume: true, driver.lookup))
            XCTAssertEqual(driver.take().contains(.resume(a)), automatic)
        }
    }

    // CONTRACT X7: a guest that reaches its limit of audio requests is throttled, told once an
    // episode; one that keeps at it for `stopAfter` is terminated, and its requests are dropped
    // from then on.
    func testX7FloodThrottlesOnceThenTerminates() throws {
        let driver = Driver(requests: FloodPolicy(limit: 4, window: .seconds(1), stopAfter: .seconds(2)))
        driver.launch(a)
        _ = driver.take()
        var throttled = 0
        var terminated: [Int] = []
        for second in 0..<3 {
            for _ in 0..<4 {
                driver.request(.audioRendering(false), from: a)
                let said = driver.take()
                throttled += records(said, .throttled).count
                if said.contains(.terminate(a)) { terminated.append(second) }
            }
            driver.clock.advance(by: .seconds(1))
        }
        XCTAssertEqual(throttled, 1, "told once for the episode")
        XCTAssertEqual(terminated, [2], "after 2 s at its limit, once")
        driver.request(.audioConfigured(try AudioConfiguration(category: .playback)), from: a)
        XCTAssertEqual(driver.take(), [], "dropped")
        XCTAssertEqual(driver.sessions.arbiter.session(of: a).configuration, .initial)
    }

    // CONTRACT C10: a plugged device takes over the route and the guests hear newDeviceAvailable;
    // unplugged, oldDeviceUnavailable, and a guest still playing a grace later does not conform,
    // while one that paused does.
    func testC10RouteChangesAndThePauseCheck() throws {
        let driver = Driver()
        driver.launch(a)
        driver.play(a, try AudioConfiguration(category: .playback))
        _ = driver.take()
        let speaker = AudioRoute(output: .speaker, input: .none)
        let headphones = AudioRoute(output: .headphones, input: .none)

        driver.apply(try driver.sessions.setDevice(.headphones, plugged: true, driver.lookup))
        XCTAssertEqual(
            driver.calls(), [call(a, .audioRouteChanged(.newDeviceAvailable, previous: speaker, current: headphones))])
        XCTAssertThrowsError(try driver.sessions.setDevice(.headphones, plugged: true, driver.lookup))
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: false, driver.lookup))
        XCTAssertEqual(
            driver.calls(),
            [call(a, .audioRouteChanged(.oldDeviceUnavailable, previous: headphones, current: speaker))])
        XCTAssertEqual(driver.pendingTimers, 1, "the pause check")
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(records(driver.take(), .audioNonconforming), ["C10"])
        XCTAssertEqual(driver.sessions.status(of: a, running: true, meters: nil)?.nonconformances, 1)

        driver.apply(try driver.sessions.setDevice(.headphones, plugged: true, driver.lookup))
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: false, driver.lookup))
        driver.request(.audioRendering(false), from: a)
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(records(driver.take(), .audioNonconforming), [], "it paused")
        XCTAssertEqual(driver.pendingTimers, 0)
    }

    // CONTRACT C10: the check judges the pause, not what the user does after it: a guest that
    // paused 4 ms after its output went away, and whose user pressed play again within the
    // grace, conforms (a third-party guest was flagged for it).
    func testC10APauseThenPlayAgainWithinTheGraceConforms() throws {
        let driver = Driver()
        driver.launch(a)
        driver.play(a, try AudioConfiguration(category: .playback))
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: true, driver.lookup))
        driver.apply(try driver.sessions.setDevice(.headphones, plugged: false, driver.lookup))
        _ = driver.take()
        driver.clock.advance(by: .milliseconds(4))
        driver.request(.audioRendering(false), from: a)
        XCTAssertEqual(driver.pendingTimers, 0, "the pause answers the check")
        driver.clock.advance(by: .milliseconds(300))
        driver.request(.audioRendering(true), from: a)
        driver.clock.advance(by: .seconds(2))
        XCTAssertEqual(records(driver.take(), .audioNonconforming), [])
        XCTAssertEqual(driver.sessions.status(of: a, running: true, meters: nil)?.nonconformances, 0)
    }

    // CONTRACT C13: a record session has no output: the mixer hands it the input each period and
    // never lets it be heard (its own render was mixed in at full level, -6 dBFS of a 440 Hz sine).
    func testC13ARecordSessionIsNeverHeard() throws {
        let driver = Driver(mixes: true)
        driver.launch(a)
        driver.play(a, try AudioConfiguration(category: .record))
        driver.apply(driver.sessions.streamAnswered(a, .success(0), driver.lookup))
        XCTAssertTrue(
            driver.take().contains(.setMix(a, AudioMix(mixed: true, gain: 0, recordsInput: true), announce: true)))
    }

    // CONTRACT B9: a guest that does not declare background audio is silent in background, though
    // it activates a mixing session there and a background task keeps it running; back in the
    // foreground it is heard again.
    func testB9WithoutBackgroundAudioAGuestInBackgroundIsSilent() throws {
        let driver = Driver(mixes: true)
        var quiet = Self.shown
        quiet.declaresBackgroundAudio = false
        driver.launch(a, quiet)
        driver.play(a, try AudioConfiguration(category: .ambient))
        driver.apply(driver.sessions.streamAnswered(a, .success(0), driver.lookup))
        XCTAssertTrue(
            driver.take().contains(.setMix(a, AudioMix(mixed: true, gain: 1, recordsInput: false), announce: true)))

        driver.become(a) { $0.appState = .background }
        driver.play(a, try AudioConfiguration(category: .ambient), request: 2)
        XCTAssertTrue(driver.sessions.arbiter.session(of: a).active, "it may activate a mixing session")
        XCTAssertTrue(
            driver.take().contains(.setMix(a, AudioMix(mixed: false, gain: 0, recordsInput: false), announce: true)))

        driver.become(a) { $0.appState = .active }
        XCTAssertTrue(
            driver.take().contains(.setMix(a, AudioMix(mixed: true, gain: 1, recordsInput: false), announce: true)))
    }

    // CONTRACT C13: the first activation opens the guest's stream before the guest hears it is
    // active; once its runtime takes it, the mixer hears its mix and the meters are read a second
    // later, naming the mixed session.
    func testC13StreamOpensAndMetersAreRead() throws {
        let driver = Driver(mixes: true)
        driver.launch(a)
        _ = driver.take()
        driver.play(a, try AudioConfiguration(category: .playback), rendering: false)
        let said = driver.take()
        let opened = try XCTUnwrap(said.firstIndex(of: .openStream(a)))
        let finished = try XCTUnwrap(said.firstIndex(of: .deliver(.audioActivationFinished(1, refusal: nil), to: a)))
        XCTAssertLessThan(opened, finished)

        driver.apply(driver.sessions.streamAnswered(a, .success(0), driver.lookup))
        XCTAssertEqual(
            driver.take(),
            [
                .record(.audioStream, guest: a, name: "open"),
                .setMix(a, AudioMix(mixed: true, gain: 1, recordsInput: false), announce: true),
            ])
        driver.clock.advance(by: .seconds(1))
        XCTAssertEqual(driver.take(), [.readMeters])
        var meters = FakeAudioMixer().meters()
        meters.output.periods = 100
        meters.sessions[a] = AudioSessionMeter(level: .silence, framesRendered: 48_000, xruns: 2)
        driver.apply(driver.sessions.metersRead(meters, at: driver.clock.uptime()) { _, _ in nil })
        let read = driver.take()
        XCTAssertEqual(records(read, .audioMeter), ["output", "session"])
        XCTAssertEqual(records(read, .audioXrun), ["2"])
        XCTAssertEqual(driver.pendingTimers, 1, "read again a second later")

        driver.become(a) {
            $0.phase = .notRunning
            $0.appState = .notRunning
        }
        XCTAssertTrue(driver.take().contains(.closeStream(a)))
    }
}
