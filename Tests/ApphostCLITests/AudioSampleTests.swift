import Foundation
import XCTest

/// The audio samples and the Swift SDK's `AudioSession`, against a fake host
/// (Plugins/Fixtures/audio_host.c) that plays the host's side of "apphost.audio/1" as each test
/// says: what the guests ask of the host (each audio call), and what they do with its answers
/// and events (their log lines). No host audio is needed: the host's own rules (who is
/// interrupted, ducked or muted) are AudioEndToEndTests'.
///
/// In the fake host's commands, values are the C ABI's: categories 0 ambient, 2 playback; modes
/// 1 spokenAudio; options 2 duckOthers, 4 interruptSpokenAudioAndMixWithOthers; activation
/// results 0 activated, 1 callInProgress, 2 nonMixingInBackground; interruption reasons 1
/// otherSession, 2 call, 3 appWentToBackground; route reasons 2 oldDeviceUnavailable; outputs 1
/// speaker, 2 headphones.
final class AudioSampleTests: HostTestCase {
    private var fakeHost: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fakeHost = try FakeAudioHost.build(into: scratch.path)
    }

    private func run(_ guest: String, _ commands: String) throws -> [String] {
        try FakeAudioHost.run(fakeHost, guest: guest, commands.split(separator: " ").map(String.init))
    }

    // MARK: - C Music

    // CONTRACT C6, C7, C10, C15 (the guest's side): playback; pauses when interrupted and when its
    // headphones go; resumes only when told it should, and only if its user had not paused.
    func testTheCMusicPlayerPausesWhenInterruptedOrUnpluggedAndResumesOnlyWhenTold() throws {
        let lines = try run(
            BuildProducts.cMusic,
            "launch show action:play answer:0 began:2 ended:2:1 answer:0 action:pause began:1 ended:1:0 "
                + "action:play answer:0 route:2:2:1 action:play answer:0 action:stop reset terminate")
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered",
                "call set_configuration 2 0 0 -> ok", "log music: ready", "log music: scene connected",
                // play: activation first, rendering once the host says it is active.
                "call activate -> ok request=1", "call set_rendering 1 -> ok", "log music: playing",
                // A call: already inactive (C6), so nothing to tell the host.
                "log music: paused (interruption: call)",
                "call activate -> ok request=2", "call set_rendering 1 -> ok", "log music: resumed",
                // Paused by its user: the session stays active, rendering stops.
                "call set_rendering 0 -> ok", "log music: paused",
                "log music: interrupted while paused (otherSession)", "log music: stays paused (should_resume 0)",
                "call activate -> ok request=3", "call set_rendering 1 -> ok", "log music: playing",
                // Headphones out (C10): pauses at once.
                "log music: route headphones -> speaker (oldDeviceUnavailable)", "call set_rendering 0 -> ok",
                "log music: paused (route: headphones gone)",
                "call activate -> ok request=4", "call set_rendering 1 -> ok", "log music: playing",
                // Stop: deactivate with notify-others (C7).
                "call set_rendering 0 -> ok", "call deactivate 1 -> ok", "log music: stopped",
                // C15: set up again, paused.
                "log music: media services reset", "call set_configuration 2 0 0 -> ok", "log music: ready",
                "terminated",
            ])
    }

    // CONTRACT C5: a refused activation leaves the player paused, saying why.
    func testTheCMusicPlayerStaysPausedWhenActivationIsRefused() throws {
        let lines = try run(BuildProducts.cMusic, "launch show action:play answer:1 action:play answer:2")
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("log music: activation") || $0.hasPrefix("call set_rendering") },
            ["log music: activation refused (callInProgress)", "log music: activation refused (nonMixingInBackground)"])
    }

    // MARK: - Swift Podcast

    // CONTRACT C4, C6, C7, C10 through the Swift SDK: playback of spoken audio; the SDK's
    // activate() resolves on activation_finished, its events stream delivers interruptions and
    // route changes.
    func testTheSwiftPodcastPausesWhenInterruptedAndResumesOnlyWhenTold() throws {
        let lines = try run(
            BuildProducts.swiftPodcast,
            "launch show action:play answer:0 began:1 ended:1:1 answer:0 began:2 ended:2:0 action:pause "
                + "action:play answer:0 route:2:2:1 action:status action:stop terminate")
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered",
                "call set_configuration 2 1 0 -> ok", "log podcast: ready",
                "call activate -> ok request=1", "call set_rendering 1 -> ok", "log podcast: playing",
                // A navigation prompt interrupts spoken audio rather than ducking it (C4).
                "log podcast: paused (interruption: otherSession)",
                "call activate -> ok request=2", "call set_rendering 1 -> ok", "log podcast: resumed",
                "log podcast: paused (interruption: call)", "log podcast: stays paused (should_resume 0)",
                "log podcast: paused",
                "call activate -> ok request=3", "call set_rendering 1 -> ok", "log podcast: playing",
                "log podcast: route headphones -> speaker (oldDeviceUnavailable)", "call set_rendering 0 -> ok",
                "log podcast: paused (route: headphones gone)",
                // get_session through the SDK's currentState().
                "log podcast: session playback spokenAudio active=true output=speaker",
                "call deactivate 1 -> ok", "log podcast: stopped",
                "terminated",
            ])
    }

    // The user paused while the interruption lasted: told it may resume, it stays paused.
    func testTheSwiftPodcastStaysPausedWhenItsUserPausedDuringTheInterruption() throws {
        let lines = try run(
            BuildProducts.swiftPodcast, "launch show action:play answer:0 began:1 action:pause ended:1:1 terminate")
        XCTAssertEqual(lines.filter { $0.hasPrefix("call activate") }, ["call activate -> ok request=1"])
        XCTAssertTrue(lines.contains("log podcast: stays paused (paused by the user)"), "\(lines)")
    }

    // MARK: - Swift Navigation

    // CONTRACT C3, C7, C8 (the guest's side): a ducking session, active only while its prompt
    // plays; a host timer ends it with notify-others.
    func testTheSwiftNavigationPromptEndsWithNotifyOthersAfterItsTimer() throws {
        let lines = try run(
            BuildProducts.swiftNavigation,
            "launch show action:prompt:100 answer:0 wait:400 state action:prompt:5000 answer:0 began:2 state terminate")
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered",
                // duckOthers | interruptSpokenAudioAndMixWithOthers; both imply mixWithOthers.
                "call set_configuration 2 0 6 -> ok", "log navigation: ready",
                "call activate -> ok request=1", "call set_rendering 1 -> ok", "log navigation: prompt playing",
                "call set_rendering 0 -> ok", "call deactivate 1 -> ok", "log navigation: prompt done",
                "state category=2 mode=0 options=7 active=0 rendering=0 gain=1.00",
                // A call cuts the next prompt: it is over, and says so to the sessions it interrupted.
                "call activate -> ok request=2", "call set_rendering 1 -> ok", "log navigation: prompt playing",
                "log navigation: prompt cut (interruption: call)", "call deactivate 1 -> ok",
                "state category=2 mode=0 options=7 active=0 rendering=0 gain=1.00",
                "terminated",
            ])
    }

    // MARK: - Swift Game

    // CONTRACT C2, C9, C11 (the guest's side): ambient; sound on whenever its window is active;
    // the soundtrack follows the secondary-audio hint; interrupted when it leaves the foreground.
    func testTheSwiftGameIsAmbientAndFollowsTheSecondaryAudioHint() throws {
        let lines = try run(
            BuildProducts.swiftGame,
            "launch show answer:0 hint:1 hint:0 hide began:3 show answer:0 hint:1 reset answer:0 action:status terminate"
        )
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered",
                "call set_configuration 0 0 0 -> ok", "log game: ready",
                "call activate -> ok request=1", "call set_rendering 1 -> ok", "log game: sound on (soundtrack on)",
                "log game: soundtrack off (secondary audio hint)", "log game: soundtrack on (secondary audio hint)",
                "log game: sound off (interruption: appWentToBackground)",
                "call activate -> ok request=2", "call set_rendering 1 -> ok", "log game: sound on (soundtrack on)",
                "log game: soundtrack off (secondary audio hint)",
                // C15: set up and sound on again; the soundtrack stays off until the hint says.
                "log game: media services reset", "call set_configuration 0 0 0 -> ok", "log game: ready",
                "call activate -> ok request=3", "call set_rendering 1 -> ok", "log game: sound on (soundtrack off)",
                "log game: session ambient active=true gain=1.0",
                "terminated",
            ])
    }

    // MARK: - The Swift SDK

    // A host without the extension: the SDK's session says it is not available, and every call
    // throws ApphostError.unsupported. The guest still answers the callbacks query.
    func testWithoutTheExtensionTheSessionIsUnavailable() throws {
        let lines = try run(BuildProducts.swiftPodcast, "noaudio launch show action:play terminate")
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered", "log podcast: no audio", "log podcast: play failed: unsupported",
                "terminated",
            ])
    }

    // A host whose table ends early (an older minor version): the SDK calls no member past its
    // struct_size, throws unsupported for those, and reads the session as at launch.
    func testMembersPastTheTablesStructSizeAreUnsupported() throws {
        // struct_size, padding, set_configuration and activate: 24 bytes.
        let lines = try run(BuildProducts.swiftPodcast, "audio-size:24 launch show action:play answer:0 action:status")
        XCTAssertEqual(
            lines,
            [
                "guest audio callbacks offered",
                "call set_configuration 2 1 0 -> ok", "log podcast: ready",
                "call activate -> ok request=1", "log podcast: activate failed: unsupported (4)",
                "log podcast: session soloAmbient default active=false output=none",
            ])
    }

    // CONTRACT C3, C5: the host's refusals reach the guest as distinct errors:
    // ApphostError.invalidCombination from setCategory, ApphostError from activate when the host
    // cannot take the request, AudioActivationError when it refuses it.
    func testRefusalsAreDistinctErrors() throws {
        let refused = try run(
            BuildProducts.swiftPodcast, "config-status:13 launch activate-status:3 show action:play terminate")
        XCTAssertEqual(
            refused,
            [
                "guest audio callbacks offered",
                "call set_configuration 2 1 0 -> invalid_combination",
                "log podcast: setCategory failed: invalid_combination (13)",
                "call activate -> invalid_state request=0", "log podcast: activate failed: invalid_state (3)",
                "terminated",
            ])
        let answered = try run(
            BuildProducts.swiftPodcast, "launch show action:play answer:1 action:play answer:2 action:play answer:3")
        XCTAssertEqual(
            answered.filter { $0.hasPrefix("log podcast: activation") },
            [
                "log podcast: activation refused (callInProgress)",
                "log podcast: activation refused (nonMixingInBackground)",
                "log podcast: activation refused (notRunning)",
            ])
    }

    // A guest unloaded while it awaits an activation: the SDK ends the wait (deinit), and nothing
    // reaches the host afterwards.
    func testAGuestUnloadedWhileItAwaitsAnActivationEndsCleanly() throws {
        let lines = try run(BuildProducts.swiftPodcast, "launch show action:play terminate")
        XCTAssertEqual(lines.suffix(2), ["call activate -> ok request=1", "terminated"])
    }
}
