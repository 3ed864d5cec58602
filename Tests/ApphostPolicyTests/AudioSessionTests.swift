import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

/// Audio sessions through the host core (CONTRACT C1 to C15, B9), with fake guests and the manual
/// clock: what each guest hears, in the order every guest heard it, and what operators see.
final class AudioSessionTests: XCTestCase {
    private var host: CoreHarness!

    override func setUp() {
        host = CoreHarness()
    }

    /// Launches `id` in the foreground with `configuration`, its session active, playing when
    /// `rendering`.
    @discardableResult
    private func launchPlaying(
        _ id: String, _ configuration: AudioConfiguration, rendering: Bool = true,
        capabilities: GuestDescriptor.Capabilities = [.backgroundAudio]
    ) -> FakeGuest {
        let guest = host.opener.add(id, capabilities: capabilities)
        host.run { $0.launch(path: id, foreground: true) }
        guest.emit(.audioConfigured(configuration))
        guest.emit(.audioActivationRequested(1))
        if rendering { guest.emit(.audioRendering(true)) }
        host.settle()
        return guest
    }

    private func audioCalls(since count: Int) -> [String] {
        Array(host.calls.names().dropFirst(count)).filter { call in
            ["activation_finished", "interruption_", "route_changed", "secondary_audio_hint", "media_services_reset"]
                .contains { call.contains($0) }
        }
    }

    private func session(_ id: String) -> AudioSessionStatus? { host.guest(id)?.audio }

    // CONTRACT C5, C6, C7: a non-mixing activation interrupts the other non-mixing session before
    // its guest hears that it is active; deactivating with notify-others tells the interrupted one
    // it should resume, since it was playing.
    func testC5C6C7ANonMixingActivationInterruptsAndNotifyOthersResumes() throws {
        launchPlaying("music", try AudioConfiguration(category: .playback))
        XCTAssertEqual(session("music")?.active, true)
        let before = host.calls.names().count
        let other = launchPlaying("other", try AudioConfiguration(category: .playback), rendering: false)
        XCTAssertEqual(
            audioCalls(since: before),
            ["music:interruption_began=otherSession", "other:activation_finished#1=activated"])
        XCTAssertEqual(session("music")?.interruption, .otherSession)
        XCTAssertEqual(session("music")?.active, false, "C6: inactive before it hears of it")

        let ended = host.calls.names().count
        other.emit(.audioDeactivated(notifyOthers: true))
        host.settle()
        XCTAssertEqual(audioCalls(since: ended), ["music:interruption_ended=otherSession/resume"])
        XCTAssertEqual(host.events.of(.audioInterrupted, guest: "music").map(\.name), ["otherSession"])
        XCTAssertEqual(host.events.of(.audioInterruptionEnded, guest: "music").map(\.message), ["should resume"])
    }

    // CONTRACT C5: refused with a reason: a non-mixing session from background, and anything while
    // the operator's call holds audio; the session stays inactive.
    func testC5RefusalsInBackgroundAndDuringACall() throws {
        let game = host.opener.add("game")
        host.run { $0.launch(path: "game", foreground: false) }
        game.emit(.audioConfigured(try AudioConfiguration(category: .playback)))
        game.emit(.audioActivationRequested(1))
        host.settle()
        XCTAssertEqual(audioCalls(since: 0), ["game:activation_finished#1=nonMixingInBackground"])
        XCTAssertEqual(host.events.of(.audioRefused, guest: "game").map(\.name), ["nonMixingInBackground"])

        game.emit(.audioConfigured(try AudioConfiguration(category: .ambient)))
        game.emit(.audioActivationRequested(2))
        host.settle()
        XCTAssertEqual(audioCalls(since: 0).last, "game:activation_finished#2=activated", "ambient mixes")

        try host.run { try $0.audio.apply(.beginCall) }
        game.emit(.audioActivationRequested(3))
        host.settle()
        XCTAssertEqual(
            Array(audioCalls(since: 0).suffix(2)),
            ["game:interruption_began=call", "game:activation_finished#3=callInProgress"])
        XCTAssertEqual(session("game")?.active, false)
        try host.run { try $0.audio.apply(.endCall(shouldResume: true)) }
        XCTAssertEqual(audioCalls(since: 0).last, "game:interruption_ended=call", "it was not playing")
        XCTAssertThrowsError(try host.run { try $0.audio.apply(.endCall(shouldResume: false)) }, "no call under way")
    }

    // CONTRACT C8, C4: a ducking session lowers the others by 20 dB while active, as operators see
    // it, and pauses spoken audio instead; both are restored when it deactivates.
    func testC8DuckingAndC4SpokenAudio() throws {
        launchPlaying("music", try AudioConfiguration(category: .playback, options: .mixWithOthers))
        launchPlaying(
            "podcast", try AudioConfiguration(category: .playback, mode: .spokenAudio, options: .mixWithOthers))
        let before = host.calls.names().count
        let nav = launchPlaying("nav", try AudioConfiguration(category: .playback, options: .duckOthers))
        XCTAssertEqual(
            audioCalls(since: before),
            ["podcast:interruption_began=otherSession", "nav:activation_finished#1=activated"])
        XCTAssertEqual(session("music")?.ducked, true)
        XCTAssertEqual(session("music")?.level ?? 0, 0.1, accuracy: 1e-9)
        XCTAssertEqual(session("podcast")?.ducked, false, "C4: paused, not ducked")
        XCTAssertEqual(host.events.of(.audioLevel, guest: "music").map(\.name), ["ducked"])

        let after = host.calls.names().count
        nav.emit(.audioDeactivated(notifyOthers: true))
        host.settle()
        XCTAssertEqual(audioCalls(since: after), ["podcast:interruption_ended=otherSession/resume"])
        XCTAssertEqual(session("music")?.level, 1)
        XCTAssertEqual(host.events.of(.audioLevel, guest: "music").map(\.name), ["ducked", "unducked"])
    }

    // CONTRACT C9, C12: the silence switch mutes ambient, not playback; the volume scales every level.
    func testC9SilenceSwitchAndC12Volume() throws {
        // The music plays on in background; the game, in the foreground, is ambient.
        launchPlaying("music", try AudioConfiguration(category: .playback, options: .mixWithOthers))
        launchPlaying("game", try AudioConfiguration(category: .ambient))
        host.run { try? $0.audio.apply(.silenceSwitch(true)) }
        XCTAssertEqual(session("game")?.muted, true)
        XCTAssertEqual(session("game")?.level, 0)
        XCTAssertEqual(session("music")?.muted, false)
        XCTAssertEqual(host.events.of(.audioLevel, guest: "game").map(\.name), ["muted"])
        try host.run { try $0.audio.apply(.volume(0.5)) }
        XCTAssertEqual(session("music")?.level, 0.5)
        XCTAssertThrowsError(try host.run { try $0.audio.apply(.volume(1.5)) })
        host.run { try? $0.audio.apply(.silenceSwitch(false)) }
        XCTAssertEqual(session("game")?.level, 0.5)
        XCTAssertEqual(host.status().audio?.silenceSwitch, false)
    }

    // CONTRACT C10: plugging headphones moves a playback session to them; unplugging moves it back
    // with oldDeviceUnavailable, and a guest still playing a second later is reported.
    func testC10RouteChangesAndThePauseCheck() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback))
        let before = host.calls.names().count
        try host.run { try $0.audio.apply(.device(.headphones, plugged: true)) }
        try host.run { try $0.audio.apply(.device(.headphones, plugged: false)) }
        XCTAssertEqual(
            audioCalls(since: before),
            [
                "music:route_changed=newDeviceAvailable:speaker/none->headphones/none",
                "music:route_changed=oldDeviceUnavailable:headphones/none->speaker/none",
            ])
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.events.of(.audioNonconforming, guest: "music").count, 1)
        XCTAssertEqual(session("music")?.nonconformances, 1)

        try host.run { try $0.audio.apply(.device(.headphones, plugged: true)) }
        try host.run { try $0.audio.apply(.device(.headphones, plugged: false)) }
        music.emit(.audioRendering(false))
        host.settle()
        host.advance(by: .seconds(2))
        XCTAssertEqual(host.events.of(.audioNonconforming, guest: "music").count, 1, "it paused in time")
        XCTAssertThrowsError(
            try host.run { try $0.audio.apply(.device(.headphones, plugged: false)) }, "not plugged in")
    }

    // CONTRACT C6, C10: with no output left, a playing session is interrupted (route gone).
    func testC10UnpluggingTheLastOutputInterruptsWithRouteGone() throws {
        launchPlaying("music", try AudioConfiguration(category: .playback))
        let before = host.calls.names().count
        try host.run { try $0.audio.apply(.device(.speaker, plugged: false)) }
        XCTAssertEqual(
            audioCalls(since: before),
            ["music:route_changed=oldDeviceUnavailable:speaker/none->none/none", "music:interruption_began=routeGone"])
        XCTAssertEqual(host.status().audio?.output, AudioOutput.none)
    }

    // CONTRACT B9, C14, B8: a guest playing in background stays running; suspended, its session is
    // inactive and it hears nothing until it resumes, then one coalesced interruption and the net
    // route change, before its scenes come back.
    func testB9C14ASuspendedGuestHearsOneCoalescedInterruptionOnResume() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback))
        host.run { $0.scenes.home() }
        host.advance(by: .seconds(5))
        XCTAssertEqual(host.guest("music")?.appState, .background, "B9: it plays")

        host.run { $0.suspend("music") }
        XCTAssertEqual(host.guest("music")?.appState, .suspended)
        XCTAssertEqual(session("music")?.interruption, .suspended)
        let before = host.calls.names().count
        try host.run { try $0.audio.apply(.beginCall) }
        try host.run { try $0.audio.apply(.endCall(shouldResume: true)) }
        try host.run { try $0.audio.apply(.device(.bluetooth, plugged: true)) }
        try host.run { try $0.audio.apply(.device(.headphones, plugged: true)) }
        XCTAssertEqual(audioCalls(since: before), [], "C14: nothing reaches a suspended guest")

        host.run { $0.switchTo("music") }
        XCTAssertEqual(
            audioCalls(since: before),
            [
                "music:interruption_began=suspended",
                "music:route_changed=newDeviceAvailable:speaker/none->headphones/none",
            ])
        _ = music
    }

    // CONTRACT B9: without the declaration, or paused, background audio keeps nobody running.
    func testB9PausedOrUndeclaredAudioDoesNotKeepAGuestRunning() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback))
        host.run { $0.scenes.home() }
        music.emit(.audioRendering(false))
        host.settle()
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.guest("music")?.appState, .suspended, "paused: B6 as any other")

        launchPlaying("undeclared", try AudioConfiguration(category: .playback), capabilities: [])
        let before = host.calls.names().count
        host.run { $0.scenes.home() }
        XCTAssertEqual(audioCalls(since: before), ["undeclared:interruption_began=appWentToBackground"])
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.guest("undeclared")?.appState, .suspended)
    }

    // CONTRACT C11: a foreground guest with an active session hears when another guest's
    // non-mixing session starts and stops playing.
    func testC11TheSecondaryAudioHintReachesTheForegroundGuest() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback), rendering: false)
        let before = host.calls.names().count
        launchPlaying("game", try AudioConfiguration(category: .ambient))
        music.emit(.audioRendering(true))
        music.emit(.audioRendering(false))
        host.settle()
        XCTAssertEqual(
            audioCalls(since: before),
            [
                "game:activation_finished#1=activated", "game:secondary_audio_hint=silence",
                "game:secondary_audio_hint=resume",
            ])
    }

    // CONTRACT C15: a media services reset reaches every running guest, whose session is as at launch.
    func testC15MediaServicesResetReachesEveryGuest() throws {
        launchPlaying("music", try AudioConfiguration(category: .playback))
        let idle = host.opener.add("idle")
        host.run { $0.launch(path: "idle", foreground: false) }
        _ = idle
        let before = host.calls.names().count
        host.run { try? $0.audio.apply(.resetMediaServices) }
        XCTAssertEqual(audioCalls(since: before), ["music:media_services_reset", "idle:media_services_reset"])
        XCTAssertEqual(session("music")?.category, .soloAmbient)
        XCTAssertEqual(session("music")?.active, false)
    }

    // CONTRACT C5, B7, B8: a request that reaches the host while its guest is suspended (a thread
    // of an in-process guest) is refused, and the guest hears so on resume.
    func testC5ARequestFromASuspendedGuestIsRefusedAndAnsweredOnResume() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback))
        host.run { $0.suspend("music") }
        let before = host.calls.names().count
        music.emit(.audioActivationRequested(2))
        host.settle()
        XCTAssertEqual(audioCalls(since: before), [])
        XCTAssertEqual(host.events.of(.audioRefused, guest: "music").map(\.name), ["notRunning"])
        host.run { $0.resume("music") }
        XCTAssertEqual(
            audioCalls(since: before),
            ["music:interruption_began=suspended", "music:activation_finished#2=notRunning"],
            "in the order they happened")
    }

    // CONTRACT C5, C7, B6, B9: a player playing in background through a call is suspended once
    // the call leaves it idle, woken when the call ends with should-resume, and may take up its
    // non-mixing session in background, where it could not start one anew.
    func testC7APlayerInBackgroundResumesAfterACall() throws {
        let music = launchPlaying("music", try AudioConfiguration(category: .playback))
        host.run { $0.scenes.home() }
        try host.run { try $0.audio.apply(.beginCall) }
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.guest("music")?.appState, .suspended, "B6: interrupted, it plays nothing")
        let before = host.calls.names().count
        try host.run { try $0.audio.apply(.endCall(shouldResume: true)) }
        XCTAssertEqual(host.guest("music")?.appState, .background, "woken to resume")
        XCTAssertEqual(audioCalls(since: before), ["music:interruption_ended=call/resume"])
        music.emit(.audioActivationRequested(2))
        music.emit(.audioRendering(true))
        host.settle()
        XCTAssertEqual(audioCalls(since: before).last, "music:activation_finished#2=activated")
        host.advance(by: .seconds(5))
        XCTAssertEqual(host.guest("music")?.appState, .background, "B9: it plays again")

        music.emit(.audioDeactivated(notifyOthers: false))
        music.emit(.audioActivationRequested(3))
        host.settle()
        XCTAssertEqual(
            audioCalls(since: before).last, "music:activation_finished#3=nonMixingInBackground",
            "C5: once taken up, the leave is spent")
    }

    // CONTRACT C7: a guest that ends releases the sessions it interrupted as notify-others would.
    func testC7AGuestThatEndsReleasesWhatItInterrupted() throws {
        launchPlaying("music", try AudioConfiguration(category: .playback))
        launchPlaying("other", try AudioConfiguration(category: .playback))
        let before = host.calls.names().count
        host.run { $0.terminate("other") }
        XCTAssertEqual(audioCalls(since: before), ["music:interruption_ended=otherSession/resume"])
        XCTAssertNil(session("other"), "no session while not running")
    }
}
