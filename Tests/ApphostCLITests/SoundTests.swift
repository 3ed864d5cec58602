import ApphostModel
import ApphostServiceTesting
import ApphostSoundTesting
import Foundation
import XCTest

/// Real sound on a real host (CONTRACT C13, C6, C14): sdk/examples/tone.c, built as a plugin
/// author builds it, renders a 1 kHz sine; the host mixes it into a WAV file, which sox measures.
/// The host's `audio-mix` events say from which period a session is mixed or silent, and the
/// file is checked against them to the frame.
final class SoundTests: HostTestCase {
    override class var stopsHostsGracefully: Bool { true }

    // MARK: - C13: the tone, at its level, to the frame

    func testC13AToneRendersIntoTheFileAtItsLevelInProcess() throws { try toneAtItsLevel("none") }
    func testC13AToneRendersIntoTheFileAtItsLevelIsolated() throws { try toneAtItsLevel("process") }

    // An offline render (--audio-clock free, --audio-length 2): 200 periods, as fast as the guest
    // renders, no xrun; from a few periods after the session is mixed (the guest starts playing
    // once it hears it is active), the file is the tone: -6.02 dBFS peak, -9.03 RMS, 1 kHz. The
    // operator sees the session's meters in `ps --json`.
    private func toneAtItsLevel(_ isolation: String) throws {
        let wav = scratch.path + "/tone.wav"
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path)],
            options: [
                "--isolation", isolation, "--audio-output", "wav:" + wav, "--audio-clock", "free", "--audio-length",
                "2",
            ])
        let mixed = try mixPeriod(host, TestGuests.toneID, "mixed")
        let deadline = Date() + 20
        var audio = try status().audio
        while audio?.mixer?.periods != 200, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            audio = try status().audio
        }
        XCTAssertEqual(audio?.mixer?.periods, 200)
        XCTAssertEqual(audio?.mixer?.clock, "free")
        let meter = try XCTUnwrap(try status().guest(TestGuests.toneID)?.audio?.meter)
        XCTAssertEqual(meter.xruns, 0, "the free clock waits for a guest that keeps up")
        XCTAssertGreaterThan(meter.framesRendered, UInt64(150 * Self.periodFrames))
        XCTAssertEqual(meter.level.rmsDBFS, -9.03, accuracy: 0.1, "the last second, as mixed")
        // The guest's render thread is real-time wherever the host's mixer could be: the worker
        // makes itself so or the host raises it, as rtkit does.
        let guestRealtime = try XCTUnwrap(try status().guest(TestGuests.toneID)?.audio?.realtime)
        if audio?.mixer?.realtime == true { XCTAssertTrue(guestRealtime, "isolation \(isolation)") }
        try stop(host)

        XCTAssertEqual(try Sox.frames(of: wav), 200 * Self.periodFrames)
        XCTAssertLessThan(mixed, 20)
        let tone = try stats(wav, periods: mixed + 5)
        XCTAssertEqual(tone.peakDB, -6.02, accuracy: 0.05)
        XCTAssertEqual(tone.rmsDB, -9.03, accuracy: 0.05)
        XCTAssertEqual(try Sox.roughFrequency(of: wav), 1000, accuracy: 5)
        XCTAssertEqual(try stats(wav, periods: 0, mixed).peakDB, -.infinity, "nothing before it is mixed")
    }

    // MARK: - C6, C14: silent from the first period after an interruption, and while suspended

    func testC6C14SilentFromThePeriodItIsInterruptedOrSuspendedInProcess() throws { try silences("none") }
    func testC6C14SilentFromThePeriodItIsInterruptedOrSuspendedIsolated() throws { try silences("process") }

    // On the host's clock: the tone plays; a call interrupts it, and the file is silent from the
    // period the host's event names; the call ends with should-resume, the guest activates again
    // and plays; suspended, it is silent again from the period named, and stays so.
    private func silences(_ isolation: String) throws {
        let wav = scratch.path + "/tone.wav"
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path)],
            options: ["--isolation", isolation, "--audio-output", "wav:" + wav])
        let mixed = try mixPeriod(host, TestGuests.toneID, "mixed")
        Thread.sleep(forTimeInterval: 0.5)

        var mark = host.events.count
        try ctlSucceeds("audio", "interrupt", "begin")
        let interrupted = try mixPeriod(host, TestGuests.toneID, "silent", after: mark)
        Thread.sleep(forTimeInterval: 0.3)
        mark = host.events.count
        try ctlSucceeds("audio", "interrupt", "end", "--should-resume")
        let resumed = try mixPeriod(host, TestGuests.toneID, "mixed", after: mark)
        Thread.sleep(forTimeInterval: 0.5)

        mark = host.events.count
        try ctlSucceeds("suspend", TestGuests.toneID)
        let suspended = try mixPeriod(host, TestGuests.toneID, "silent", after: mark)
        Thread.sleep(forTimeInterval: 0.3)
        try stop(host)

        XCTAssertLessThan(mixed + 10, interrupted)
        let playing = try stats(wav, periods: mixed + 5, interrupted)
        XCTAssertEqual(playing.rmsDB, -9.03, accuracy: 0.1, "the tone up to the interruption")
        XCTAssertEqual(try stats(wav, periods: interrupted, resumed).peakDB, -.infinity, "C6: silent from its period")
        XCTAssertLessThan(resumed + 10, suspended)
        XCTAssertEqual(try stats(wav, periods: resumed + 5, suspended).rmsDB, -9.03, accuracy: 0.1)
        XCTAssertEqual(try stats(wav, periods: suspended).peakDB, -.infinity, "C14: nothing from a suspended guest")
    }

    // MARK: - C13, C14: a broken renderer costs the mix only its own sound

    /// The mixer's periods and each session's meter, now.
    private func meters() throws -> (periods: UInt64, sessions: [String: AudioSessionMeter]) {
        let status = try status()
        var sessions: [String: AudioSessionMeter] = [:]
        for guest in status.guests { if let meter = guest.audio?.meter { sessions[guest.id] = meter } }
        return (status.audio?.mixer?.periods ?? 0, sessions)
    }

    /// Waits until `guest`'s session has missed 5 periods more than it had when this began (a
    /// guest may miss its very first period while its audio thread starts), and returns the
    /// mixer's period then.
    private func waitForXruns(of guest: String, file: StaticString = #filePath, line: UInt = #line) throws -> UInt64 {
        let baseline = try meters().sessions[guest]?.xruns ?? 0
        let deadline = Date() + 10
        while Date() < deadline {
            let now = try meters()
            if let meter = now.sessions[guest], meter.xruns >= baseline + 5 { return now.periods }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("\(guest) counted no xrun", file: file, line: line)
        throw HostTestFailure()
    }

    /// The tone and a guest that renders a 440 Hz sine beside it, then goes wrong as `fault` says,
    /// on the host's clock into a WAV file; the tone's session is mixed when this returns.
    private func toneBesideFault(_ fault: Int, _ isolation: String) throws -> (HostProcess, wav: String) {
        let wav = scratch.path + "/mix.wav"
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path), try TestGuests.renderFault(fault, into: scratch.path)],
            options: ["--isolation", isolation, "--audio-output", "wav:" + wav])
        _ = try mixPeriod(host, TestGuests.toneID, "mixed")
        _ = try mixPeriod(host, TestGuests.renderFaultID, "mixed")
        return (host, wav)
    }

    /// After the fault: the mixer keeps its pace, the tone counts no xrun, and the file from a few
    /// periods after `from` is the tone alone, at its level.
    private func assertToneGoesOn(
        _ host: HostProcess, _ wav: String, from period: UInt64, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let start = Date()
        let toneXruns = try meters().sessions[TestGuests.toneID]?.xruns
        Thread.sleep(forTimeInterval: 1)
        let after = try meters()
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(
            Double(after.periods - period), elapsed * 100 * 0.7, "the mixer keeps its pace", file: file, line: line)
        // A worker's audio thread runs without real-time priority here (it runs as a user of its
        // own): on a busy 2-core machine it may miss a period now and then, as any ordinary
        // thread may; the broken guest beside it must not make it miss more.
        XCTAssertLessThanOrEqual(
            (after.sessions[TestGuests.toneID]?.xruns ?? 0) - (toneXruns ?? 0), 2, "the tone goes on", file: file,
            line: line)
        try stop(host, file: file, line: line)
        // Up to the stop: the guests end before the mixer, which goes on with silence.
        let tone = try stats(wav, periods: Int(period) + 5, Int(after.periods))
        XCTAssertEqual(tone.rmsDB, -9.03, accuracy: 0.1, "the tone alone", file: file, line: line)
        XCTAssertEqual(tone.peakDB, -6.02, accuracy: 0.05, file: file, line: line)
    }

    // X2: a guest that crashes inside its render is gone (its worker died); the mix goes on with
    // the tone alone, which missed no period.
    func testC13ACrashInsideRenderCostsOnlyItsOwnSoundIsolated() throws {
        let (host, wav) = try toneBesideFault(1, "process")
        try host.waitForEvent("the faulty guest's end") {
            $0.kind == .terminated && $0.guest == TestGuests.renderFaultID
        }
        try assertToneGoesOn(host, wav, from: try meters().periods)
    }

    func testC14AHungRenderCostsOnlyItsOwnSoundInProcess() throws { try hungRender("none") }
    func testC14AHungRenderCostsOnlyItsOwnSoundIsolated() throws { try hungRender("process") }

    // A guest stuck inside its render: every period the mixer asks of it is an xrun and silence,
    // nothing waits for it; the tone plays on; the host still shuts down (the stuck audio thread
    // is left behind, its library kept loaded).
    private func hungRender(_ isolation: String) throws {
        let (host, wav) = try toneBesideFault(2, isolation)
        let hung = try waitForXruns(of: TestGuests.renderFaultID)
        let before = try meters().sessions[TestGuests.renderFaultID]?.xruns ?? 0
        Thread.sleep(forTimeInterval: 0.5)
        let later = try meters().sessions[TestGuests.renderFaultID]?.xruns ?? 0
        XCTAssertGreaterThan(later - before, 25, "an xrun a period while it hangs")
        try assertToneGoesOn(host, wav, from: hung)
    }

    // B7: a worker frozen whole (as the kernel's freezer or SIGSTOP leaves it) renders nothing:
    // its session counts xruns, the tone plays on; thawed, it renders again.
    func testC14AFrozenGuestCostsOnlyItsOwnSoundIsolated() throws {
        let (host, wav) = try toneBesideFault(0, "process")
        Thread.sleep(forTimeInterval: 0.7)
        let pid = try XCTUnwrap(try status().guest(TestGuests.renderFaultID)?.pid)
        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        let frozen = try waitForXruns(of: TestGuests.renderFaultID)
        XCTAssertEqual(kill(pid, SIGCONT), 0)
        Thread.sleep(forTimeInterval: 0.3)
        let thawed = try meters().sessions[TestGuests.renderFaultID]
        Thread.sleep(forTimeInterval: 0.5)
        let later = try meters().sessions[TestGuests.renderFaultID]
        XCTAssertEqual(later?.xruns, thawed?.xruns, "thawed, it keeps up again")
        XCTAssertGreaterThan(later?.framesRendered ?? 0, thawed?.framesRendered ?? 0)
        try stop(host)
        let mixed = try stats(wav, periods: Int(frozen) - 50, Int(frozen) - 5)
        XCTAssertGreaterThan(mixed.rmsDB, -7, "both sines before the freeze")
    }

    func testX2ABusyLateRenderIsDemotedInProcess() throws { try busyLateRender("none") }
    func testX2ABusyLateRenderIsDemotedIsolated() throws { try busyLateRender("process") }

    /// The faulty guest's audio thread, as its `audio-thread` event names it; the test is skipped
    /// where the host cannot make it real-time.
    private func realtimeAudioThread(of host: HostProcess) throws -> Int32 {
        let thread = try host.waitForEvent("its audio thread") {
            $0.kind == .audioThread && $0.guest == TestGuests.renderFaultID
        }
        guard thread.name == "real-time" else { throw XCTSkip("the host cannot give audio threads real-time here") }
        return try XCTUnwrap(thread.message.flatMap { Int32($0.dropFirst("thread ".count)) })
    }

    // X2 (issue 34, point 9): a render that spins past its period in every period at real-time
    // priority, sleeping a moment after each so that RLIMIT_RTTIME never ends it, would hold back
    // every other session's audio thread at the same priority. Within seconds its thread runs
    // under ordinary scheduling, and the event stream says so; the tone plays on.
    private func busyLateRender(_ isolation: String) throws {
        let (host, _) = try toneBesideFault(6, isolation)
        let tid = try realtimeAudioThread(of: host)
        let demoted = try host.waitForEvent("its demotion", timeout: 20) {
            $0.kind == .audioDemoted && $0.guest == TestGuests.renderFaultID
        }
        XCTAssertEqual(demoted.name, "ordinary")
        XCTAssertEqual(sched_getscheduler(tid), SCHED_OTHER, "isolation \(isolation)")
        // Told through its session (ABI 1.9): APPHOST_AUDIO_DEMOTED_MISSED_DEADLINES.
        try host.waitForLog(TestGuests.renderFaultID, "render demoted 1")
        let faultXruns = try meters().sessions[TestGuests.renderFaultID]?.xruns ?? 0
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertGreaterThan(
            try meters().sessions[TestGuests.renderFaultID]?.xruns ?? 0, faultXruns, "it is as late as before")
        try stop(host)
    }

    // X7 (issue 37): a render that spins, one and a half periods of work in each and never a
    // sleep, reaches RLIMIT_RTTIME's soft limit (200 ms) at real-time priority, where the kernel
    // sends SIGXCPU. It was a crash ("killed by SIGXCPU") after costing the tone beside it 75
    // xruns in a second. The worker now puts that thread back to ordinary scheduling there and
    // then, and says so: the guest lives on, as late as before, and the tone keeps up. Isolated
    // only: the limit is the worker's (a guest in the host's process is demoted by the meters'
    // watch, as the busy late render above).
    func testX7ASpinningRenderIsDemotedAtTheRealtimeLimitIsolated() throws {
        let (host, wav) = try toneBesideFault(7, "process")
        let tid = try realtimeAudioThread(of: host)
        let demoted = try host.waitForEvent("its demotion at the real-time limit", timeout: 10) {
            $0.kind == .audioDemoted && $0.guest == TestGuests.renderFaultID
        }
        XCTAssertEqual(demoted.name, "ordinary")
        XCTAssertTrue(demoted.message?.contains("RLIMIT_RTTIME") == true, demoted.message ?? "")
        XCTAssertEqual(sched_getscheduler(tid), SCHED_OTHER)
        // The guest is told through its session (ABI 1.9): APPHOST_AUDIO_DEMOTED_REALTIME_LIMIT.
        try host.waitForLog(TestGuests.renderFaultID, "render demoted 2")

        // The tone keeps up from a moment after the demotion; the spinning guest lives on, late.
        Thread.sleep(forTimeInterval: 0.3)
        let from = try meters()
        let toneXruns = from.sessions[TestGuests.toneID]?.xruns ?? 0
        let faultXruns = from.sessions[TestGuests.renderFaultID]?.xruns ?? 0
        Thread.sleep(forTimeInterval: 1)
        let after = try meters()
        XCTAssertLessThanOrEqual((after.sessions[TestGuests.toneID]?.xruns ?? 0) - toneXruns, 2, "the tone keeps up")
        XCTAssertGreaterThan(
            after.sessions[TestGuests.renderFaultID]?.xruns ?? 0, faultXruns, "it is as late as before")
        XCTAssertEqual(try status().guest(TestGuests.renderFaultID)?.phase, .running, "it lives on")
        XCTAssertEqual(host.events.filter { $0.kind == .error }.compactMap(\.message), [], "no guest died")
        try stop(host)
        // The tone at its level throughout that second: the spinning guest's periods, late, are
        // its own silence, and take nothing from the tone.
        let mixed = try stats(wav, periods: Int(from.periods) + 5, Int(after.periods))
        XCTAssertGreaterThanOrEqual(mixed.rmsDB, -9.2, "the tone throughout")
    }

    // MARK: - X7: samples that are not numbers are the guest's own silence

    func testX7NaNSamplesAreTheGuestsOwnSilenceInProcess() throws { try badSamples(3, "none") }
    func testX7NaNSamplesAreTheGuestsOwnSilenceIsolated() throws { try badSamples(3, "process") }
    func testX7InfiniteSamplesAreTheGuestsOwnSilenceInProcess() throws { try badSamples(4, "none") }
    func testX7InfiniteSamplesAreTheGuestsOwnSilenceIsolated() throws { try badSamples(4, "process") }
    func testX7AbsurdSamplesAreTheGuestsOwnSilenceInProcess() throws { try badSamples(5, "none") }
    func testX7AbsurdSamplesAreTheGuestsOwnSilenceIsolated() throws { try badSamples(5, "process") }

    // CONTRACT X7: beside the tone, a guest that puts a NaN, +Inf or 1e30 into every period it
    // renders (`fault` 3, 4, 5 of render_fault_guest.c). While it plays: `ctl ps`, `ctl audio`
    // (plain and --json) and GET /v1/guests answer; the bad guest's count of bad samples is in
    // the status, in `ctl audio`, in the metrics and in one event naming it; and the rendered file
    // is the tone alone, at its level (the bad guest's periods are its own silence, and the tone
    // is neither silenced by a NaN nor drowned by an output pinned at full scale).
    private func badSamples(_ fault: Int, _ isolation: String) throws {
        let wav = scratch.path + "/mix.wav"
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path), try TestGuests.renderFault(fault, into: scratch.path)],
            options: [
                "--isolation", isolation, "--audio-output", "wav:" + wav, "--http", "0", "--log-level",
                "info",
            ])
        let port = try host.httpAddress().port
        _ = try mixPeriod(host, TestGuests.toneID, "mixed")
        _ = try mixPeriod(host, TestGuests.renderFaultID, "mixed")
        // 50 good periods, then bad ones: a second and a half in, the meters have seen them.
        Thread.sleep(forTimeInterval: 2.5)
        let from = try mixerPeriods()

        let ps = try ctl("ps")
        XCTAssertEqual(ps.status, 0, "ctl ps: \(ps.stderr)")
        let psJSON = try ctl("ps", "--json")
        XCTAssertEqual(psJSON.status, 0, "ctl ps --json: \(psJSON.stderr)")
        let audio = try ctl("audio")
        XCTAssertEqual(audio.status, 0, "ctl audio: \(audio.stderr)")
        let audioJSON = try ctl("audio", "--json")
        XCTAssertEqual(audioJSON.status, 0, "ctl audio --json: \(audioJSON.stderr)")
        let guests = try HTTPTestClient.request("GET", "/v1/guests", port: port)
        XCTAssertEqual(guests.status, 200, guests.body)
        XCTAssertTrue(guests.body.hasPrefix(#"{"ok":true"#), guests.body)

        // The count, read from the status as JSON: by the guest's session, and none for the tone.
        let count = { (guest: String) -> UInt64? in
            guard let line = psJSON.stdout.first, let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)),
                let list = (object as? [String: Any])?["guests"] as? [[String: Any]],
                let entry = list.first(where: { $0["id"] as? String == guest }),
                let meter = (entry["audio"] as? [String: Any])?["meter"] as? [String: Any]
            else { return nil }
            return (meter["badSamples"] as? NSNumber)?.uint64Value
        }
        XCTAssertGreaterThan(count(TestGuests.renderFaultID) ?? 0, 0, "the bad guest's count: \(psJSON.stdout)")
        XCTAssertEqual(count(TestGuests.toneID), 0, "the tone's count")
        let row = audio.stdout.first { $0.hasPrefix(TestGuests.renderFaultID) }
        XCTAssertNotNil(row, "\(audio.stdout)")
        let metrics = try ctlSucceeds("metrics").stdout
        XCTAssertTrue(
            metrics.contains {
                $0.hasPrefix(#"apphost_guest_audio_bad_samples_total{guest="\#(TestGuests.renderFaultID)"} "#)
            }, "\(metrics.filter { $0.contains("bad_samples") })")
        Thread.sleep(forTimeInterval: 1.5)
        let to = try mixerPeriods()
        try stop(host)

        let tone = try stats(wav, periods: from, to)
        XCTAssertEqual(tone.rmsDB, -9.03, accuracy: 0.1, "the tone alone, at its level")
        XCTAssertEqual(tone.peakDB, -6.02, accuracy: 0.05, "nothing pinned at full scale")
        // Bad samples in every period for seconds on end: one episode, one event, naming the guest.
        let named = host.events.filter { $0.kind.rawValue == "audio-bad-samples" }
        XCTAssertEqual(named.map(\.guest), [TestGuests.renderFaultID], "one event for the episode")
        XCTAssertTrue(named.first?.message?.contains("silenced") ?? false, "\(named.map(\.humanLine))")
    }

    // MARK: - Sinks, sources and bad options

    // C13 on ALSA: the tone mixed into alsa-lib's null device, with recording sessions fed from its
    // null capture device; the mixer reports the sink, no failure, and the session's sound.
    func testC13TheMixReachesAnALSADevice() throws {
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path)],
            options: ["--audio-output", "alsa:null", "--audio-input", "alsa:null"])
        _ = try mixPeriod(host, TestGuests.toneID, "mixed")
        Thread.sleep(forTimeInterval: 1.3)
        let audio = try XCTUnwrap(try status().audio)
        let mixer = try XCTUnwrap(audio.mixer)
        XCTAssertEqual(mixer.sink, "alsa:null")
        XCTAssertEqual(mixer.source, "alsa:null")
        XCTAssertNil(mixer.failure)
        XCTAssertEqual(mixer.latencyMilliseconds, 10)
        let meter = try XCTUnwrap(try status().guest(TestGuests.toneID)?.audio?.meter)
        XCTAssertGreaterThan(meter.framesRendered, 48_000)
        XCTAssertEqual(meter.level.rmsDBFS, -9.03, accuracy: 0.1)
        let table = try ctlSucceeds("audio").stdout
        XCTAssertTrue(table.contains { $0.hasPrefix("mixer: alsa:null <- alsa:null, real clock") }, "\(table)")
    }

    // Bad sound options get one line and a non-zero exit, before any guest loads.
    func testBadSoundOptionsGetOneLine() throws {
        let guest = try TestGuests.tone(into: scratch.path)
        let cases: [([String], String)] = [
            (["--audio-output", "bogus"], "--audio-output must be null, wav:PATH or alsa:DEVICE"),
            (["--audio-output", "wav:" + scratch.path + "/missing/out.wav"], "cannot create"),
            (["--audio-output", "alsa:nope"], "alsa:nope: cannot open for playback"),
            (["--audio-input", "tone:30000"], "Nyquist"),
            (["--audio-input", "wav:" + scratch.path + "/none.wav"], "cannot open"),
            (["--audio-input", "mic"], "--audio-input must be silence, tone:HZ, wav:PATH or alsa:DEVICE"),
            (["--audio-clock", "fast"], "--audio-clock must be real or free"),
            (["--audio-rate", "1000"], "--audio-rate must be from 8000 to 192000"),
            (["--audio-period", "0"], "--audio-period must be from 16 to 8192"),
            (["--audio-length", "-1"], "--audio-length must be more than 0"),
        ]
        for (options, expected) in cases {
            let result = try runApphost(["launch", "--data-dir", dataDirectory] + options + [guest])
            XCTAssertNotEqual(result.status, 0, "\(options)")
            XCTAssertEqual(result.stderr.count, 1, "\(options): \(result.stderr)")
            XCTAssertTrue(result.stderr.first?.contains(expected) ?? false, "\(options): \(result.stderr)")
        }
    }

    // MARK: - C13: recording, C12: the host's volume, and the meters in the event stream

    func testC13ARecorderHearsTheHostsInputInProcess() throws { try recorder("none") }
    func testC13ARecorderHearsTheHostsInputIsolated() throws { try recorder("process") }

    // A playAndRecord guest that plays back what it hears, with --audio-input tone:500: the file
    // holds the host's 500 Hz input (-9.03 dBFS RMS) through the guest, a period later.
    private func recorder(_ isolation: String) throws {
        let wav = scratch.path + "/echo.wav"
        let (_, mixed) = try recording(isolation, into: wav, recordsOnly: false)
        let echo = try stats(wav, periods: mixed + 5)
        XCTAssertEqual(echo.rmsDB, -9.03, accuracy: 0.1)
        XCTAssertEqual(try Sox.roughFrequency(of: wav), 500, accuracy: 5)
    }

    /// The render-fault guest as a recorder (of category record with `recordsOnly`, else
    /// playAndRecord) on a host whose input is a 500 Hz tone, until the mixer's 150th period: the
    /// host, stopped, and the period its mix began.
    private func recording(_ isolation: String, into wav: String, recordsOnly: Bool) throws -> (HostProcess, Int) {
        let host = try startHost(
            [try TestGuests.renderFault(0, records: !recordsOnly, recordsOnly: recordsOnly, into: scratch.path)],
            options: [
                "--isolation", isolation, "--audio-output", "wav:" + wav, "--audio-input", "tone:500",
                "--audio-clock", "free", "--audio-length", "1.5",
            ])
        let mixed = try mixPeriod(host, TestGuests.renderFaultID, "mixed")
        let deadline = Date() + 20
        while try mixerPeriods() < 150, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        try stop(host)
        return (host, mixed)
    }

    func testC13ARecordSessionIsNeverHeardInProcess() throws { try recordOnly("none") }
    func testC13ARecordSessionIsNeverHeardIsolated() throws { try recordOnly("process") }

    // A record session that renders a 440 Hz sine all the same, as a third-party guest's did
    // (-6.02 dBFS in the file): record has no output, so the file stays silent, while the mixer
    // hands the session the host's input each period (its mix says gain 0).
    private func recordOnly(_ isolation: String) throws {
        let wav = scratch.path + "/record.wav"
        let (host, _) = try recording(isolation, into: wav, recordsOnly: true)
        XCTAssertEqual(try stats(wav, periods: 0).peakDB, -.infinity, "C13: a record session is never heard")
        let mix = host.events.last { $0.kind == .audioMix && $0.guest == TestGuests.renderFaultID }
        XCTAssertEqual(mix?.message?.hasPrefix("gain 0.000"), true, "mixed for its input, at gain 0")
    }

    func testB9WithoutBackgroundAudioAGuestIsSilentInBackgroundInProcess() throws { try sneaks("none") }
    func testB9WithoutBackgroundAudioAGuestIsSilentInBackgroundIsolated() throws { try sneaks("process") }

    // A guest that does not declare background audio and, sent home, begins a background task and
    // activates an ambient session that mixes with others, which the host grants in background: a
    // third-party guest's played on at full level for as long as its task kept it running (6.5 s).
    // The file holds its sine up to the period going home silenced it, and silence after, though
    // its session is active again.
    private func sneaks(_ isolation: String) throws {
        let wav = scratch.path + "/sneak.wav"
        let host = try startHost(
            [try TestGuests.renderFault(0, sneaks: true, into: scratch.path)],
            options: ["--isolation", isolation, "--audio-output", "wav:" + wav])
        let mixed = try mixPeriod(host, TestGuests.renderFaultID, "mixed")
        Thread.sleep(forTimeInterval: 0.5)
        let mark = host.events.count
        try ctlSucceeds("home")
        let silenced = try mixPeriod(host, TestGuests.renderFaultID, "silent", after: mark)
        _ = try host.waitForEvent("its ambient session active again", after: mark) {
            $0.kind == .audioActivated && $0.guest == TestGuests.renderFaultID
        }
        Thread.sleep(forTimeInterval: 1)
        try stop(host)
        XCTAssertEqual(try stats(wav, periods: mixed + 5, silenced).rmsDB, -9.03, accuracy: 0.1, "in the foreground")
        XCTAssertEqual(try stats(wav, periods: silenced).peakDB, -.infinity, "B9: silent in background")
    }

    func testC12TheHostsVolumeIsHeardAndMeteredInProcess() throws { try volume("none") }
    func testC12TheHostsVolumeIsHeardAndMeteredIsolated() throws { try volume("process") }

    // The host's volume at 0.5 takes 6.02 dB off the tone in the file, from the period the host
    // names; the event stream's meter of the session says its level, once a second.
    private func volume(_ isolation: String) throws {
        let wav = scratch.path + "/tone.wav"
        let host = try startHost(
            [try TestGuests.tone(into: scratch.path)],
            options: ["--isolation", isolation, "--audio-output", "wav:" + wav])
        let mixed = try mixPeriod(host, TestGuests.toneID, "mixed")
        // The second: the first second's may hold the periods before the guest played.
        let first = try host.waitForEvent("the tone's meter") {
            $0.kind == .audioMeter && $0.guest == TestGuests.toneID
        }
        let meter = try host.waitForEvent("the tone's second meter") {
            $0.kind == .audioMeter && $0.guest == TestGuests.toneID && $0.time > first.time
        }
        XCTAssertTrue(meter.message?.hasPrefix("peak -6.0 dBFS, rms -9.0 dBFS, ") ?? false, meter.humanLine)
        let mark = host.events.count
        try ctlSucceeds("audio", "volume", "0.5")
        let halved = try mixPeriod(host, TestGuests.toneID, "mixed", after: mark, saying: "gain 0.500")
        Thread.sleep(forTimeInterval: 0.5)
        let end = try mixerPeriods()
        try stop(host)
        XCTAssertEqual(try stats(wav, periods: mixed + 5, halved).rmsDB, -9.03, accuracy: 0.1)
        XCTAssertEqual(try stats(wav, periods: halved, end).rmsDB, -15.05, accuracy: 0.1, "C12: 6.02 dB lower")
    }
}
