import ApphostModel
import XCTest

@testable import ApphostPolicy

/// The audio sessions' arbitration on its own (CONTRACT C1, C5 to C9, C12, B9): who sounds, who
/// is interrupted, who hears what, in order, and each session's place in the mix.
final class AudioArbiterTests: XCTestCase {
    private func configured(
        _ arbiter: inout AudioArbiter, _ guest: String, _ category: AudioCategory,
        mode: AudioMode = .default, options: AudioOptions = []
    ) throws {
        XCTAssertEqual(
            arbiter.configure(guest, try AudioConfiguration(category: category, mode: mode, options: options)), [])
    }

    // CONTRACT C1: one session per guest, soloAmbient and inactive until the guest says otherwise;
    // a new configuration replaces the whole of the old one, options included.
    func testC1OneSessionPerGuestStartingAsSoloAmbient() throws {
        var arbiter = AudioArbiter()
        XCTAssertEqual(arbiter.session(of: "music").configuration, .initial)
        XCTAssertFalse(arbiter.session(of: "music").active)
        try configured(&arbiter, "music", .playback, options: .mixWithOthers)
        try configured(&arbiter, "music", .playback)
        XCTAssertEqual(arbiter.session(of: "music").configuration.options, [], "setting a category resets options")
    }

    // CONTRACT C5: activating a non-mixing session interrupts every other active non-mixing one,
    // and leaves the mixing ones be.
    func testC5ANonMixingSessionInterruptsTheOtherNonMixingOnes() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "game", .ambient)
        try configured(&arbiter, "radio", .playback)
        XCTAssertEqual(try arbiter.activate("music", inBackground: false), [])
        XCTAssertEqual(try arbiter.activate("game", inBackground: false), [], "ambient mixes")
        XCTAssertEqual(
            try arbiter.activate("radio", inBackground: false),
            [.interruptionBegan(guest: "music", reason: .otherSession)])
        XCTAssertFalse(arbiter.session(of: "music").active, "C6: inactive before it hears of it")
        XCTAssertTrue(arbiter.session(of: "game").active)
    }

    // CONTRACT C5: a call holds audio against every activation; a guest in background cannot
    // start a non-mixing session, but may start a mixing one.
    func testC5ActivationRefusals() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "nav", .playback, options: .duckOthers)
        XCTAssertThrowsError(try arbiter.activate("music", inBackground: true)) {
            XCTAssertEqual($0 as? AudioActivationRefusal, .nonMixingInBackground)
        }
        XCTAssertFalse(arbiter.session(of: "music").active, "a refusal changes nothing")
        XCTAssertEqual(try arbiter.activate("nav", inBackground: true), [])
        _ = arbiter.beginCall()
        XCTAssertThrowsError(try arbiter.activate("music", inBackground: false)) {
            XCTAssertEqual($0 as? AudioActivationRefusal, .callInProgress)
        }
    }

    // CONTRACT C6, C7: deactivating with notify-others ends the interruptions it caused, with
    // should-resume only for the sessions that were rendering sound; without notify-others they
    // hear nothing more.
    func testC7ShouldResumeOnlyForSessionsThatWereRendering() throws {
        var arbiter = AudioArbiter()
        for guest in ["music", "paused", "call-app"] { try configured(&arbiter, guest, .playback) }
        _ = try arbiter.activate("music", inBackground: false)
        arbiter.setRendering("music", true)
        _ = try arbiter.activate("paused", inBackground: false)  // interrupts music
        _ = try arbiter.activate("music", inBackground: false)  // interrupts paused, not rendering
        arbiter.setRendering("music", true)
        XCTAssertEqual(
            try arbiter.activate("call-app", inBackground: false),
            [.interruptionBegan(guest: "music", reason: .otherSession)])
        XCTAssertEqual(
            arbiter.deactivate("call-app", notifyOthers: true),
            [.interruptionEnded(guest: "music", reason: .otherSession, shouldResume: true)]
        )

        _ = try arbiter.activate("music", inBackground: false)  // resumed, but renders nothing
        _ = try arbiter.activate("paused", inBackground: false)  // interrupts music
        XCTAssertEqual(
            arbiter.deactivate("paused", notifyOthers: true),
            [.interruptionEnded(guest: "music", reason: .otherSession, shouldResume: false)])

        _ = try arbiter.activate("music", inBackground: false)
        _ = try arbiter.activate("paused", inBackground: false)
        XCTAssertEqual(arbiter.deactivate("paused", notifyOthers: false), [], "C6: a began may have no ended")
        XCTAssertNil(arbiter.session(of: "music").interruption)
    }

    // CONTRACT C6: the operator's call interrupts every active session, mixing ones too; its end
    // says should-resume as the operator asks, and only to sessions that were rendering.
    func testC6ACallInterruptsEverySessionAndItsEndResumesTheRenderingOnes() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "game", .ambient)
        _ = try arbiter.activate("music", inBackground: false)
        _ = try arbiter.activate("game", inBackground: false)
        arbiter.setRendering("music", true)
        XCTAssertEqual(
            arbiter.beginCall(),
            [.interruptionBegan(guest: "music", reason: .call), .interruptionBegan(guest: "game", reason: .call)])
        XCTAssertEqual(
            arbiter.endCall(shouldResume: true),
            [
                .interruptionEnded(guest: "music", reason: .call, shouldResume: true),
                .interruptionEnded(guest: "game", reason: .call, shouldResume: false),
            ])
        XCTAssertEqual(arbiter.endCall(shouldResume: true), [], "no call, no end")

        _ = try arbiter.activate("music", inBackground: false)
        arbiter.setRendering("music", true)
        _ = arbiter.beginCall()
        XCTAssertEqual(
            arbiter.endCall(shouldResume: false),
            [.interruptionEnded(guest: "music", reason: .call, shouldResume: false)])
    }

    // CONTRACT C8, C4: a duckOthers session lowers every other audible session by 20 dB while it
    // is active, and pauses spoken audio instead of ducking it.
    func testC8DuckingAndC4SpokenAudioIsPausedNotDucked() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "podcast", .playback, mode: .spokenAudio, options: .mixWithOthers)
        try configured(&arbiter, "nav", .playback, options: .duckOthers)
        _ = try arbiter.activate("music", inBackground: false)
        _ = try arbiter.activate("podcast", inBackground: false)
        XCTAssertEqual(
            try arbiter.activate("nav", inBackground: false),
            [.interruptionBegan(guest: "podcast", reason: .otherSession)])
        XCTAssertEqual(arbiter.level(of: "music"), AudioLevel(ducked: true, muted: false, gain: 0.1))
        XCTAssertEqual(arbiter.level(of: "nav"), AudioLevel(ducked: false, muted: false, gain: 1))
        XCTAssertEqual(arbiter.level(of: "podcast").gain, 0, "interrupted: out of the mix")
        XCTAssertEqual(
            arbiter.deactivate("nav", notifyOthers: true),
            [.interruptionEnded(guest: "podcast", reason: .otherSession, shouldResume: false)])
        XCTAssertEqual(arbiter.level(of: "music"), AudioLevel(ducked: false, muted: false, gain: 1), "restored")
    }

    // CONTRACT C9: the silence switch mutes ambient and soloAmbient output in the mix, nothing else.
    func testC9TheSilenceSwitchMutesAmbientAndSoloAmbient() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "game", .ambient)
        try configured(&arbiter, "music", .playback, options: .mixWithOthers)
        _ = try arbiter.activate("game", inBackground: false)
        _ = try arbiter.activate("music", inBackground: false)
        arbiter.silenceSwitch = true
        XCTAssertEqual(arbiter.level(of: "game"), AudioLevel(ducked: false, muted: true, gain: 0))
        XCTAssertEqual(arbiter.level(of: "music").gain, 1)
        arbiter.silenceSwitch = false
        XCTAssertEqual(arbiter.level(of: "game").gain, 1)
    }

    // CONTRACT C12: the final level is the host's volume; a guest sets only its own gain.
    func testC12TheHostsVolumeTimesTheGuestsGain() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        _ = try arbiter.activate("music", inBackground: false)
        arbiter.volume = 0.5
        arbiter.setGain("music", 0.5)
        XCTAssertEqual(arbiter.level(of: "music").gain, 0.25)
        arbiter.setGain("music", 7)
        arbiter.volume = -1
        XCTAssertEqual(arbiter.session(of: "music").gain, 1, "clamped to 0...1")
        XCTAssertEqual(arbiter.volume, 0, "clamped to 0...1")
        XCTAssertEqual(arbiter.level(of: "other").gain, 0, "no session, no sound")
    }

    // CONTRACT B9: in background, a session keeps its guest running only with the declaration and
    // a category that plays in background; otherwise it is interrupted (app went to background).
    func testB9BackgroundAudioNeedsTheDeclarationAndACategoryThatPlaysInBackground() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "game", .ambient)
        _ = try arbiter.activate("music", inBackground: false)
        _ = try arbiter.activate("game", inBackground: false)
        XCTAssertEqual(arbiter.wentToBackground("music", declaresBackgroundAudio: true), [])
        XCTAssertFalse(
            arbiter.playsInBackground("music", declaresBackgroundAudio: true), "active but silent: suspended as any")
        arbiter.setRendering("music", true)
        XCTAssertTrue(arbiter.playsInBackground("music", declaresBackgroundAudio: true))
        XCTAssertEqual(
            arbiter.wentToBackground("game", declaresBackgroundAudio: true),
            [.interruptionBegan(guest: "game", reason: .appWentToBackground)], "ambient does not play in background")
        XCTAssertEqual(
            arbiter.wentToBackground("music", declaresBackgroundAudio: false),
            [.interruptionBegan(guest: "music", reason: .appWentToBackground)])
        XCTAssertFalse(arbiter.playsInBackground("music", declaresBackgroundAudio: true))
    }

    // CONTRACT C11: a foreground guest with an active session hears when another guest's
    // non-mixing session starts or stops playing, once per change; one in background, or with no
    // active session, hears nothing.
    func testC11TheSecondaryAudioHint() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "game", .ambient)
        try configured(&arbiter, "idle", .ambient)
        _ = try arbiter.activate("music", inBackground: false)
        _ = try arbiter.activate("game", inBackground: false)
        let foreground: Set = ["game", "idle"]
        XCTAssertEqual(arbiter.secondaryAudioHints(foreground: foreground), [], "music is active but silent")
        arbiter.setRendering("music", true)
        XCTAssertEqual(
            arbiter.secondaryAudioHints(foreground: foreground), [.secondaryAudioHint(guest: "game", silence: true)])
        XCTAssertEqual(arbiter.secondaryAudioHints(foreground: foreground), [], "once per change")
        XCTAssertEqual(arbiter.secondaryAudioHints(foreground: ["music"]), [], "music hears nothing of itself")
        XCTAssertEqual(
            arbiter.secondaryAudioHints(foreground: foreground), [.secondaryAudioHint(guest: "game", silence: true)],
            "back in the foreground: told again")
        arbiter.setRendering("music", false)
        XCTAssertEqual(
            arbiter.secondaryAudioHints(foreground: foreground), [.secondaryAudioHint(guest: "game", silence: false)])
    }

    // A guest that ends cannot say notify-others: the sessions it interrupted hear the end as if
    // it had, and its own session goes.
    func testAGuestThatEndsReleasesWhatItInterrupted() throws {
        var arbiter = AudioArbiter()
        try configured(&arbiter, "music", .playback)
        try configured(&arbiter, "nav", .playback)
        _ = try arbiter.activate("music", inBackground: false)
        arbiter.setRendering("music", true)
        _ = try arbiter.activate("nav", inBackground: false)
        XCTAssertEqual(
            arbiter.remove("nav"), [.interruptionEnded(guest: "music", reason: .otherSession, shouldResume: true)])
        XCTAssertEqual(arbiter.guests, ["music"])
    }
}
