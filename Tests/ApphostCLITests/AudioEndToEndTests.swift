import ApphostVocabulary
import Foundation
import XCTest

/// The audio samples on a real host, in both isolation modes, driven as an operator would: user
/// actions on their scenes (`ctl action`), the host's devices, calls and silence switch
/// (`ctl audio ...`). What each guest did is in its log lines ("music: paused (interruption:
/// call)"); what the host decided is in `ctl audio --json` (active, playing, interrupted, ducked,
/// muted) and its events.
final class AudioEndToEndTests: HostTestCase {
    static let musicID = "org.apphost.samples.music"
    static let gameID = "org.apphost.samples.game"
    static let podcastID = "org.apphost.samples.podcast"
    static let navigationID = "org.apphost.samples.navigation"

    override class var stopsHostsGracefully: Bool { true }

    // MARK: - Support

    /// The session of `guest` as `ctl audio --json` shows it: its members by name.
    func audio(of guest: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let output = try ctlSucceeds("audio", "--json", file: file, line: line).stdout.joined(separator: "\n")
        let view = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output, file: file, line: line)
        let sessions = try XCTUnwrap(view["sessions"] as? [[String: Any]], output, file: file, line: line)
        let entry = try XCTUnwrap(
            sessions.first { $0["guest"] as? String == guest }, "no session of \(guest): \(output)", file: file,
            line: line)
        return try XCTUnwrap(entry["session"] as? [String: Any], output, file: file, line: line)
    }

    /// The row of `guest` in `ctl audio`, as people read it, by column name.
    func audioRow(of guest: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String:
        String]
    {
        let lines = try ctlSucceeds("audio", file: file, line: line).stdout
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("GUEST") }, "\(lines)", file: file, line: line)
        let row = try XCTUnwrap(lines.first { $0.hasPrefix(guest + " ") }, "\(lines)", file: file, line: line)
        // Columns start where the header's names do; a cell runs to the next column.
        var starts: [(name: String, at: Int)] = []
        var previous: Character = " "
        for (offset, character) in header.enumerated() {
            if character != " ", previous == " " {
                let name = header.dropFirst(offset).prefix { $0 != " " }
                starts.append((String(name), offset))
            }
            previous = character
        }
        let cells = Array(row)
        var result: [String: String] = [:]
        for (index, column) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].at : cells.count
            guard column.at < cells.count else { continue }
            result[column.name] = String(cells[column.at..<min(end, cells.count)]).trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    func scene(of guest: String, file: StaticString = #filePath, line: UInt = #line) throws -> SceneStatus {
        try XCTUnwrap(try status().guest(guest)?.scenes.first, "no scene of \(guest)", file: file, line: line)
    }

    /// A host on `guests` in `isolation`, each ready (its session set up, its scene connected), the
    /// first two side by side when there are two, so that both are in the foreground: a guest in
    /// background may not activate a session that does not mix (C5).
    func start(
        _ guests: [(product: String, id: String, ready: String)], _ isolation: String, options: [String] = []
    ) throws -> HostProcess {
        let host = try startHost(guests.map(\.product), options: ["--isolation", isolation] + options)
        for guest in guests { try host.waitForLog(guest.id, guest.ready) }
        for guest in guests { _ = try scene(of: guest.id) }
        if guests.count == 2 {
            try ctlSucceeds(
                "layout", "split", try scene(of: guests[0].id).session, try scene(of: guests[1].id).session)
        }
        return host
    }

    static let music = (product: BuildProducts.cMusic, id: musicID, ready: "music: ready")
    static let game = (product: BuildProducts.swiftGame, id: gameID, ready: "game: ready")
    static let podcast = (product: BuildProducts.swiftPodcast, id: podcastID, ready: "podcast: ready")
    static let navigation = (
        product: BuildProducts.swiftNavigation, id: navigationID, ready: "navigation: ready"
    )

    /// The names of the host's audio events of `kind` for `guest` from `mark` on, in order (such
    /// as "ducked", "unducked" for `.audioLevel`): what `ctl events` prints after the guest's id.
    func audioEvents(
        _ host: HostProcess, _ kind: HostEvent.Kind, of guest: String, after mark: Int = 0
    ) -> [String] {
        host.events.dropFirst(mark).filter { $0.kind == kind && $0.guest == guest }.map { $0.name ?? "" }
    }

    /// Fails if `guest` logs `message` within `seconds` after `mark`.
    func assertNoLog(
        _ host: HostProcess, _ guest: String, _ message: String, after mark: Int, within seconds: TimeInterval,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        Thread.sleep(forTimeInterval: seconds)
        XCTAssertFalse(
            host.events.dropFirst(mark).contains { $0.kind == .log && $0.guest == guest && $0.message == message },
            "\(guest) logged \"\(message)\"", file: file, line: line)
    }

    // MARK: - The music player: headphones and calls

    func testTheMusicPlayerPausesWhenUnpluggedInProcess() throws { try musicUnplugged("none") }
    func testTheMusicPlayerPausesWhenUnpluggedIsolated() throws { try musicUnplugged("process") }

    // CONTRACT C10: the headphones come out while the player plays: it pauses (its session stays
    // active, no longer playing), and the host finds nothing to report a second later.
    func musicUnplugged(_ isolation: String) throws {
        let host = try start([Self.music], isolation)
        let player = try scene(of: Self.musicID)
        try ctlSucceeds("audio", "route", "plug", "headphones")
        try ctlSucceeds("action", player.session, "play")
        try host.waitForLog(Self.musicID, "music: playing")
        var session = try audio(of: Self.musicID)
        XCTAssertEqual(session["active"] as? Bool, true)
        XCTAssertEqual(session["rendering"] as? Bool, true)

        let mark = host.events.count
        try ctlSucceeds("audio", "route", "unplug", "headphones")
        try host.waitForLog(Self.musicID, "music: route headphones -> speaker (oldDeviceUnavailable)", after: mark)
        try host.waitForLog(Self.musicID, "music: paused (route: headphones gone)", after: mark)
        Thread.sleep(forTimeInterval: 1.5)
        session = try audio(of: Self.musicID)
        XCTAssertEqual(session["rendering"] as? Bool, false)
        XCTAssertEqual(session["nonconformances"] as? Int, 0, "it paused in time (C10)")
        XCTAssertEqual(try audioRow(of: Self.musicID)["PLAYING"], "no")
        XCTAssertEqual(audioEvents(host, .audioRoute, of: Self.musicID, after: mark), ["oldDeviceUnavailable"])
        XCTAssertEqual(audioEvents(host, .audioNonconforming, of: Self.musicID), [], "C10: it paused in time")
    }

    func testTheMusicPlaysOnInBackgroundUntilItPausesInProcess() throws { try musicInBackground("none") }
    func testTheMusicPlaysOnInBackgroundUntilItPausesIsolated() throws { try musicInBackground("process") }

    // CONTRACT B9, B6: the player declares background audio; switched away from while it plays, it
    // keeps running; once it pauses (its headphones went), it is suspended like any idle guest.
    func musicInBackground(_ isolation: String) throws {
        let host = try startHost([BuildProducts.cMusic], options: ["--isolation", isolation, "--suspend-delay", "0.3"])
        try host.waitForLog(Self.musicID, "music: ready")
        let player = try scene(of: Self.musicID)
        try ctlSucceeds("audio", "route", "plug", "headphones")
        try ctlSucceeds("action", player.session, "play")
        try host.waitForLog(Self.musicID, "music: playing")

        let mark = host.events.count
        try ctlSucceeds("home")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try status().guest(Self.musicID)?.appState, .background, "playing in background (B9)")
        XCTAssertFalse(
            host.events.dropFirst(mark).contains { $0.kind == .suspended && $0.guest == Self.musicID },
            "not suspended while it plays")
        XCTAssertEqual(try audio(of: Self.musicID)["rendering"] as? Bool, true)

        try ctlSucceeds("audio", "route", "unplug", "headphones")
        try host.waitForLog(Self.musicID, "music: paused (route: headphones gone)", after: mark)
        try host.waitForEvent("the player suspended once it paused", after: mark) {
            $0.kind == .suspended && $0.guest == Self.musicID
        }
    }

    func testTheMusicPlayerPausesForACallAndResumesOnlyWhenToldInProcess() throws { try musicCall("none") }
    func testTheMusicPlayerPausesForACallAndResumesOnlyWhenToldIsolated() throws { try musicCall("process") }

    // CONTRACT C5, C6, C7: a call interrupts the playing player; it resumes when the call ends
    // with should-resume, and stays paused when it ends without, or when its user had paused.
    func musicCall(_ isolation: String) throws {
        let host = try start([Self.music], isolation)
        let player = try scene(of: Self.musicID)
        try ctlSucceeds("action", player.session, "play")
        try host.waitForLog(Self.musicID, "music: playing")

        // A call, which ends with leave to resume.
        var mark = host.events.count
        try ctlSucceeds("audio", "interrupt", "begin")
        try host.waitForLog(Self.musicID, "music: paused (interruption: call)", after: mark)
        let interrupted = try audio(of: Self.musicID)
        XCTAssertEqual(interrupted["active"] as? Bool, false, "already inactive when told (C6)")
        XCTAssertEqual(interrupted["interruption"] as? String, "call")
        try ctlSucceeds("audio", "interrupt", "end", "--should-resume")
        try host.waitForLog(Self.musicID, "music: resumed", after: mark)
        XCTAssertEqual(try audio(of: Self.musicID)["rendering"] as? Bool, true)

        XCTAssertEqual(audioEvents(host, .audioInterrupted, of: Self.musicID, after: mark), ["call"])
        XCTAssertEqual(
            host.events.dropFirst(mark).filter { $0.kind == .audioInterruptionEnded && $0.guest == Self.musicID }
                .map(\.message), ["should resume"])

        // A call that ends without: it stays paused.
        mark = host.events.count
        try ctlSucceeds("audio", "interrupt", "begin")
        try host.waitForLog(Self.musicID, "music: paused (interruption: call)", after: mark)
        try ctlSucceeds("audio", "interrupt", "end")
        try host.waitForLog(Self.musicID, "music: stays paused (should_resume 0)", after: mark)
        assertNoLog(host, Self.musicID, "music: resumed", after: mark, within: 0.5)

        // Paused by its user before the call: not told to resume, even with leave (C7).
        try ctlSucceeds("action", player.session, "play")
        try host.waitForLog(Self.musicID, "music: playing", after: mark)
        try ctlSucceeds("action", player.session, "pause")
        try host.waitForLog(Self.musicID, "music: paused", after: mark)
        mark = host.events.count
        try ctlSucceeds("audio", "interrupt", "begin")
        try host.waitForLog(Self.musicID, "music: interrupted while paused (call)", after: mark)
        try ctlSucceeds("audio", "interrupt", "end", "--should-resume")
        try host.waitForLog(Self.musicID, "music: stays paused (should_resume 0)", after: mark)
        assertNoLog(host, Self.musicID, "music: resumed", after: mark, within: 0.5)
    }

    // MARK: - The game: the silence switch and the secondary-audio hint

    func testTheSilenceSwitchMutesTheGameInProcess() throws { try gameSilenced("none") }
    func testTheSilenceSwitchMutesTheGameIsolated() throws { try gameSilenced("process") }

    // CONTRACT C9: the silence switch mutes the ambient game in the host's mix (the game does
    // nothing), and only it: the playing music is not muted.
    func gameSilenced(_ isolation: String) throws {
        let host = try start([Self.game, Self.music], isolation)
        try host.waitForLog(Self.gameID, "game: sound on", prefix: true)
        try ctlSucceeds("action", try scene(of: Self.musicID).session, "play")
        try host.waitForLog(Self.musicID, "music: playing")
        XCTAssertEqual(try audio(of: Self.gameID)["muted"] as? Bool, false)

        try ctlSucceeds("audio", "silence", "on")
        XCTAssertEqual(try audio(of: Self.gameID)["muted"] as? Bool, true)
        XCTAssertEqual(try audio(of: Self.gameID)["active"] as? Bool, true, "muted, not interrupted")
        XCTAssertEqual(try audioRow(of: Self.gameID)["MUTED"], "yes")
        XCTAssertEqual(try audio(of: Self.musicID)["muted"] as? Bool, false, "playback ignores the switch")

        try ctlSucceeds("audio", "silence", "off")
        XCTAssertEqual(try audio(of: Self.gameID)["muted"] as? Bool, false)
        XCTAssertEqual(audioEvents(host, .audioLevel, of: Self.gameID), ["muted", "unmuted"])
        XCTAssertEqual(audioEvents(host, .audioLevel, of: Self.musicID), [], "the music was never lowered")
    }

    func testTheGameSilencesItsSoundtrackWhileMusicPlaysInProcess() throws { try gameHint("none") }
    func testTheGameSilencesItsSoundtrackWhileMusicPlaysIsolated() throws { try gameHint("process") }

    // CONTRACT C11: the game, in the foreground with an active session, hears that secondary
    // audio should be silenced while the music plays, and that it may come back when it stops.
    func gameHint(_ isolation: String) throws {
        let host = try start([Self.game, Self.music], isolation)
        try host.waitForLog(Self.gameID, "game: sound on (soundtrack on)")
        let player = try scene(of: Self.musicID)
        let mark = host.events.count
        try ctlSucceeds("action", player.session, "play")
        try host.waitForLog(Self.gameID, "game: soundtrack off (secondary audio hint)", after: mark)
        try ctlSucceeds("action", player.session, "stop")
        try host.waitForLog(Self.gameID, "game: soundtrack on (secondary audio hint)", after: mark)
        XCTAssertEqual(try audio(of: Self.gameID)["interruption"] as? String, nil, "mixed, never interrupted")
        XCTAssertEqual(audioEvents(host, .audioHint, of: Self.gameID, after: mark), ["silence", "resume"])
    }

    // MARK: - Media services reset

    func testEveryGuestSetsItsSessionUpAgainAfterAResetInProcess() throws { try reset("none") }
    func testEveryGuestSetsItsSessionUpAgainAfterAResetIsolated() throws { try reset("process") }

    // CONTRACT C15: the host's audio engine restarts; every session is back as at launch, and each
    // sample sets its own up again: the player (C) paused, the game (Swift) with its sound on.
    func reset(_ isolation: String) throws {
        let host = try start([Self.game, Self.music], isolation)
        try host.waitForLog(Self.gameID, "game: sound on", prefix: true)
        try ctlSucceeds("action", try scene(of: Self.musicID).session, "play")
        try host.waitForLog(Self.musicID, "music: playing")

        let mark = host.events.count
        try ctlSucceeds("audio", "reset")
        try host.waitForLog(Self.musicID, "music: media services reset", after: mark)
        try host.waitForLog(Self.musicID, "music: ready", after: mark)
        try host.waitForLog(Self.gameID, "game: media services reset", after: mark)
        try host.waitForLog(Self.gameID, "game: sound on", prefix: true, after: mark)
        let music = try audio(of: Self.musicID)
        XCTAssertEqual(music["category"] as? String, "playback", "set up again")
        XCTAssertEqual(music["active"] as? Bool, false, "and paused, until its user plays")
        let game = try audio(of: Self.gameID)
        XCTAssertEqual(game["category"] as? String, "ambient")
        XCTAssertEqual(game["active"] as? Bool, true)
    }

    // MARK: - The navigation prompt: the podcast and the music

    func testAPromptInterruptsThePodcastWhichResumesAfterInProcess() throws { try podcastPrompt("none") }
    func testAPromptInterruptsThePodcastWhichResumesAfterIsolated() throws { try podcastPrompt("process") }

    // CONTRACT C4, C7, C8: the prompt interrupts the spoken-audio podcast rather than duck it;
    // when it ends with notify-others, the podcast is told it should resume, and does. In the
    // file (C13, C6): the podcast's 220 Hz until the prompt, nothing of it during the prompt.
    func podcastPrompt(_ isolation: String) throws {
        let wav = scratch.path + "/mix.wav"
        let host = try start([Self.podcast, Self.navigation], isolation, options: ["--audio-output", "wav:" + wav])
        try ctlSucceeds("action", try scene(of: Self.podcastID).session, "play")
        try host.waitForLog(Self.podcastID, "podcast: playing")
        let playing = try mixPeriod(host, Self.podcastID, "mixed")
        Thread.sleep(forTimeInterval: 0.5)

        let mark = host.events.count
        try ctlSucceeds("action", try scene(of: Self.navigationID).session, "prompt", "3000")
        try host.waitForLog(Self.navigationID, "navigation: prompt playing", after: mark)
        try host.waitForLog(Self.podcastID, "podcast: paused (interruption: otherSession)", after: mark)
        let during = try audio(of: Self.podcastID)
        XCTAssertEqual(during["ducked"] as? Bool, false, "spoken audio is interrupted, never ducked (C4)")
        XCTAssertEqual(during["active"] as? Bool, false)
        XCTAssertEqual(during["interruption"] as? String, "otherSession")
        XCTAssertEqual(try audioRow(of: Self.podcastID)["DUCKED"], "no")

        try host.waitForLog(Self.navigationID, "navigation: prompt done", after: mark)
        try host.waitForLog(Self.podcastID, "podcast: resumed", after: mark)
        let after = try audio(of: Self.podcastID)
        XCTAssertEqual(after["active"] as? Bool, true)
        XCTAssertEqual(after["rendering"] as? Bool, true)
        XCTAssertEqual(audioEvents(host, .audioInterrupted, of: Self.podcastID, after: mark), ["otherSession"])
        XCTAssertEqual(
            host.events.dropFirst(mark).filter { $0.kind == .audioInterruptionEnded && $0.guest == Self.podcastID }
                .map(\.message), ["should resume"])
        XCTAssertEqual(audioEvents(host, .audioLevel, of: Self.podcastID), [], "never ducked (C4)")

        let interrupted = try mixPeriod(host, Self.podcastID, "silent", after: mark)
        let resumed = try mixPeriod(host, Self.podcastID, "mixed", after: mark)
        try stop(host)
        let voice = try stats(wav, periods: playing + 5, interrupted, effects: Self.band(around: 220))
        XCTAssertEqual(voice.rmsDB, -9.03, accuracy: 0.3, "the podcast's voice")
        let silent = try stats(wav, periods: interrupted + 5, resumed, effects: Self.band(around: 220))
        // What the band lets through of the prompt's 660 Hz (its edges, cut by the trim) reads
        // some 50 dB below the voice; the voice itself would read -9.
        XCTAssertLessThan(silent.rmsDB, -45, "nothing of the podcast while interrupted (C6)")
    }

    func testAPromptDucksTheMusicInProcess() throws { try musicDucked("none") }
    func testAPromptDucksTheMusicIsolated() throws { try musicDucked("process") }

    // CONTRACT C8: while the prompt plays the music goes on 20 dB lower (ducked, not interrupted),
    // and comes back up when it ends.
    func musicDucked(_ isolation: String) throws {
        let host = try start([Self.music, Self.navigation], isolation)
        try ctlSucceeds("action", try scene(of: Self.musicID).session, "play")
        try host.waitForLog(Self.musicID, "music: playing")

        let mark = host.events.count
        try ctlSucceeds("action", try scene(of: Self.navigationID).session, "prompt", "3000")
        try host.waitForLog(Self.navigationID, "navigation: prompt playing", after: mark)
        let during = try audio(of: Self.musicID)
        XCTAssertEqual(during["ducked"] as? Bool, true)
        XCTAssertEqual(during["active"] as? Bool, true, "ducked, not interrupted")
        XCTAssertEqual(during["rendering"] as? Bool, true)
        XCTAssertEqual(try audioRow(of: Self.musicID)["DUCKED"], "yes")

        try host.waitForLog(Self.navigationID, "navigation: prompt done", after: mark)
        XCTAssertEqual(try audio(of: Self.musicID)["ducked"] as? Bool, false)
        XCTAssertFalse(
            host.events.dropFirst(mark).contains {
                $0.kind == .log && $0.guest == Self.musicID && ($0.message ?? "").hasPrefix("music: paused")
            }, "the music never paused")
        XCTAssertEqual(audioEvents(host, .audioLevel, of: Self.musicID, after: mark), ["ducked", "unducked"])
        XCTAssertEqual(audioEvents(host, .audioInterrupted, of: Self.musicID), [])
    }
}
