import ApphostVocabulary
import Foundation
import XCTest

/// What the audio samples' mix sounds like on a real host: the rendered file and an ALSA device,
/// measured (C13, with C8, C9 and C12 made audible). Apart from `AudioEndToEndTests`' decisions
/// so that each file stays one concern.
extension AudioEndToEndTests {
    /// The samples' tones (their headers): each at amplitude 0.5, -9.03 dBFS RMS.
    static func band(around hertz: Int) -> [String] { ["sinc", "-t", "50", "\(hertz - 50)-\(hertz + 50)"] }

    func testC8TheDuckedMusicIs20dBLowerInTheMixInProcess() throws { try duckedInTheMix("none") }
    func testC8TheDuckedMusicIs20dBLowerInTheMixIsolated() throws { try duckedInTheMix("process") }

    // While the prompt (660 Hz) plays, the music (1 kHz) goes on 20 dB lower in the file, within
    // 0.5 dB, and comes back to its level after: each measured in its own band, between the
    // periods the host's audio-mix events name.
    func duckedInTheMix(_ isolation: String) throws {
        let wav = scratch.path + "/mix.wav"
        let host = try start([Self.music, Self.navigation], isolation, options: ["--audio-output", "wav:" + wav])
        try ctlSucceeds("action", try scene(of: Self.musicID).session, "play")
        try host.waitForLog(Self.musicID, "music: playing")
        _ = try mixPeriod(host, Self.musicID, "mixed", saying: "gain 1.000")
        let mark = host.events.count
        try ctlSucceeds("action", try scene(of: Self.navigationID).session, "prompt", "1500")
        let ducked = try mixPeriod(host, Self.musicID, "mixed", after: mark, saying: "gain 0.100")
        let unducked = try mixPeriod(host, Self.musicID, "mixed", after: mark, saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 1.2)
        let end = try mixerPeriods()
        try stop(host)

        let full = try stats(wav, periods: unducked + 5, end, effects: Self.band(around: 1000))
        let low = try stats(wav, periods: ducked + 5, unducked, effects: Self.band(around: 1000))
        XCTAssertEqual(full.rmsDB, -9.03, accuracy: 0.3, "the music alone")
        XCTAssertEqual(full.rmsDB - low.rmsDB, 20, accuracy: 0.5, "C8: 20 dB lower while the prompt plays")
        let prompt = try stats(wav, periods: ducked + 5, unducked, effects: Self.band(around: 660))
        XCTAssertEqual(prompt.rmsDB, -9.03, accuracy: 0.5, "the prompt at its own level")
    }

    func testC9TheSilenceSwitchSilencesTheGameInTheMixInProcess() throws { try silencedInTheMix("none") }
    func testC9TheSilenceSwitchSilencesTheGameInTheMixIsolated() throws { try silencedInTheMix("process") }

    // The ambient game's 440 Hz soundtrack is in the file until the silence switch goes on, is
    // nothing at all from the period the host names until it goes off, and is back at its level
    // from the period named then.
    func silencedInTheMix(_ isolation: String) throws {
        let wav = scratch.path + "/mix.wav"
        let host = try start([Self.game], isolation, options: ["--audio-output", "wav:" + wav])
        try host.waitForLog(Self.gameID, "game: sound on", prefix: true)
        let playing = try mixPeriod(host, Self.gameID, "mixed", saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 0.5)
        var mark = host.events.count
        try ctlSucceeds("audio", "silence", "on")
        let muted = try mixPeriod(host, Self.gameID, "mixed", after: mark, saying: "gain 0.000")
        Thread.sleep(forTimeInterval: 0.5)
        mark = host.events.count
        try ctlSucceeds("audio", "silence", "off")
        let unmuted = try mixPeriod(host, Self.gameID, "mixed", after: mark, saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 0.5)
        let end = try mixerPeriods()
        try stop(host)

        XCTAssertEqual(try stats(wav, periods: playing + 5, muted).rmsDB, -9.03, accuracy: 0.1, "the soundtrack")
        XCTAssertEqual(try stats(wav, periods: muted, unmuted).peakDB, -.infinity, "C9: muted from its period")
        XCTAssertEqual(try stats(wav, periods: unmuted, end).rmsDB, -9.03, accuracy: 0.1, "back at once")
        XCTAssertEqual(
            try stats(wav, periods: unmuted, end, effects: Self.band(around: 440)).rmsDB, -9.03, accuracy: 0.3)
    }

    // On an ALSA device (alsa-lib's null): the podcast (220 Hz) and the game (440 Hz) each reach
    // the mix at their level, as its meters measure it.
    func testTheSamplesSoundOnAnALSADeviceIsolated() throws {
        let host = try start([Self.game, Self.podcast], "process", options: ["--audio-output", "alsa:null"])
        try host.waitForLog(Self.gameID, "game: sound on", prefix: true)
        _ = try mixPeriod(host, Self.gameID, "mixed", saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 1.3)
        let game = try XCTUnwrap(try status().guest(Self.gameID)?.audio?.meter)
        XCTAssertEqual(game.level.rmsDBFS, -9.03, accuracy: 0.1, "the game's soundtrack")
        XCTAssertGreaterThan(game.framesRendered, 48_000)
        try ctlSucceeds("action", try scene(of: Self.podcastID).session, "play")
        try host.waitForLog(Self.podcastID, "podcast: playing")
        _ = try mixPeriod(host, Self.podcastID, "mixed", saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 1.3)
        let podcast = try XCTUnwrap(try status().guest(Self.podcastID)?.audio?.meter)
        XCTAssertEqual(podcast.level.rmsDBFS, -9.03, accuracy: 0.1, "the podcast's voice")
        XCTAssertEqual(podcast.xruns, 0)
        XCTAssertEqual(try status().audio?.mixer?.sink, "alsa:null")
        XCTAssertNil(try status().audio?.mixer?.failure)
    }

    // The music (1 kHz) and the prompt (660 Hz) on the same device: the music at its level, then
    // 20 dB lower (as mixed) while the prompt plays at its own.
    func testTheMusicAndThePromptSoundOnAnALSADeviceIsolated() throws {
        let host = try start([Self.music, Self.navigation], "process", options: ["--audio-output", "alsa:null"])
        try ctlSucceeds("action", try scene(of: Self.musicID).session, "play")
        try host.waitForLog(Self.musicID, "music: playing")
        _ = try mixPeriod(host, Self.musicID, "mixed", saying: "gain 1.000")
        Thread.sleep(forTimeInterval: 1.3)
        XCTAssertEqual(
            try XCTUnwrap(try status().guest(Self.musicID)?.audio?.meter).level.rmsDBFS, -9.03, accuracy: 0.1)
        let mark = host.events.count
        try ctlSucceeds("action", try scene(of: Self.navigationID).session, "prompt", "2500")
        _ = try mixPeriod(host, Self.musicID, "mixed", after: mark, saying: "gain 0.100")
        // The meters cover a second of periods each: the first after the ducking may straddle it
        // (-12 dB, half loud), the second is the ducked music's alone. A fixed sleep read one or
        // the other depending on where the prompt fell in the meters' second.
        var meters = host.events.count
        for _ in 0..<2 {
            let meter = try host.waitForEvent("a meter of the music", after: meters) {
                $0.kind == .audioMeter && $0.guest == Self.musicID
            }
            meters = (host.events.lastIndex(of: meter) ?? meters) + 1
        }
        let status = try status()
        XCTAssertEqual(try XCTUnwrap(status.guest(Self.musicID)?.audio?.meter).level.rmsDBFS, -29.03, accuracy: 0.3)
        XCTAssertEqual(
            try XCTUnwrap(status.guest(Self.navigationID)?.audio?.meter).level.rmsDBFS, -9.03, accuracy: 0.3)
    }
}
