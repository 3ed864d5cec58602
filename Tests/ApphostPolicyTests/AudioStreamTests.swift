import ApphostModel
import ApphostPolicy
import ApphostPolicyTesting
import XCTest

/// The sound's policy in the core (CONTRACT C13, C6, C8, C9, C12, C14) with a fake mixer and fake
/// guests: when a session's stream opens and closes, how it is mixed as the arbiter decides, and
/// what the event stream says of it.
final class AudioStreamTests: XCTestCase {
    private var host: CoreHarness!
    private var mixer: FakeAudioMixer!

    override func setUp() {
        mixer = FakeAudioMixer()
        host = CoreHarness(audioMixer: mixer)
    }

    @discardableResult
    private func launchActive(
        _ id: String, _ configuration: AudioConfiguration, capabilities: GuestDescriptor.Capabilities = []
    ) -> FakeGuest {
        let guest = host.opener.add(id, capabilities: capabilities)
        host.run { $0.launch(path: id, foreground: true) }
        guest.emit(.audioConfigured(configuration))
        guest.emit(.audioActivationRequested(1))
        host.settle()
        return guest
    }

    private func messages(of id: String) -> [String] {
        host.calls.messages.filter { $0.guest == id }.map { $0.message.call.callbackName }
    }

    // C13: the stream opens at the session's first activation, before the guest hears it is
    // active, and is mixed at its gain once the guest's runtime took it; a second activation opens
    // no other; the stream closes when the guest ends.
    func testC13TheStreamOpensAtTheFirstActivationAndClosesAtTheEnd() throws {
        let music = launchActive("music", try AudioConfiguration(category: .playback))
        let sent = messages(of: "music")
        let stream = try XCTUnwrap(sent.firstIndex(of: "audio_stream"))
        XCTAssertEqual(sent[stream + 1], "activation_finished", "the stream comes first")
        XCTAssertEqual(mixer.log, ["open music", "music: mixed 1.0"])
        XCTAssertEqual(host.events.of(.audioStream, guest: "music").map(\.name), ["open"])
        XCTAssertEqual(host.events.of(.audioMix, guest: "music").map(\.message), ["gain 1.000 from period 1"])

        music.emit(.audioDeactivated(notifyOthers: false))
        music.emit(.audioActivationRequested(2))
        host.settle()
        XCTAssertEqual(messages(of: "music").filter { $0 == "audio_stream" }.count, 1)
        XCTAssertEqual(mixer.log, ["open music", "music: mixed 1.0", "music: silent", "music: mixed 1.0"])

        host.run { $0.terminate("music") }
        host.advance(by: .seconds(10))
        XCTAssertEqual(mixer.log.last, "close music")
    }

    // A guest without render (ABI 1.4) answers UNSUPPORTED: its stream closes at once and it is
    // never mixed; nothing is an error of the host's. A mixer that cannot make one says why.
    func testAGuestWithoutRenderIsNeverMixed() throws {
        let old = host.opener.add("old")
        old.streamStatus = 4
        host.run { $0.launch(path: "old", foreground: true) }
        old.emit(.audioConfigured(try AudioConfiguration(category: .playback)))
        old.emit(.audioActivationRequested(1))
        host.settle()
        XCTAssertEqual(mixer.log, ["open old", "close old"])
        XCTAssertEqual(host.events.of(.audioStream, guest: "old").map(\.message), ["unsupported"])
        XCTAssertNil(host.guest("old")?.audio?.meter)

        mixer.refusesStreams = true
        launchActive("late", try AudioConfiguration(category: .ambient))
        XCTAssertEqual(host.events.of(.audioStream, guest: "late").map(\.name), ["failed"])
        XCTAssertEqual(
            host.events.of(.audioStream, guest: "late").map(\.message), ["the mixer's table is full"])
    }

    // C9, C12: the silence switch and the host's volume set a session's gain; C8: ducking too;
    // C14, C6: a suspension and a call make sessions silent at once.
    func testC6C8C9C12C14TheMixFollowsTheArbiter() throws {
        launchActive("game", try AudioConfiguration(category: .ambient))
        XCTAssertEqual(mixer.log, ["open game", "game: mixed 1.0"])
        try host.run { try $0.audio.apply(.volume(0.5)) }
        XCTAssertEqual(mixer.log.last, "game: mixed 0.5")
        host.run { try? $0.audio.apply(.silenceSwitch(true)) }
        XCTAssertEqual(mixer.log.last, "game: mixed 0.0", "C9: ambient is muted")
        host.run { try? $0.audio.apply(.silenceSwitch(false)) }
        XCTAssertEqual(mixer.log.last, "game: mixed 0.5")

        // The player keeps playing in background (B9) when the prompt comes to the foreground.
        let music = launchActive("music", try AudioConfiguration(category: .playback), capabilities: [.backgroundAudio])
        music.emit(.audioRendering(true))
        host.settle()
        XCTAssertTrue(mixer.log.contains("game: silent"), "the game went to background: \(mixer.log)")
        XCTAssertEqual(mixer.log.last, "music: mixed 0.5")
        launchActive("prompt", try AudioConfiguration(category: .playback, options: .duckOthers))
        XCTAssertTrue(mixer.log.suffix(3).contains("music: mixed 0.05"), "C8: -20 dB: \(mixer.log)")
        XCTAssertEqual(host.events.of(.audioMix, guest: "music").last?.message?.hasPrefix("gain 0.050"), true)

        host.run { $0.suspend("music") }
        XCTAssertEqual(mixer.log.last, "music: silent", "C14: nothing from a suspended guest")
        try host.run { try $0.audio.apply(.beginCall) }
        XCTAssertEqual(mixer.log.last, "prompt: silent", "C6: a call silences every session")
        XCTAssertEqual(host.events.of(.audioMix, guest: "prompt").last?.name, "silent")
    }

    // A recording category gets the host's input.
    func testARecordingSessionGetsTheInput() throws {
        launchActive("recorder", try AudioConfiguration(category: .playAndRecord, options: .mixWithOthers))
        XCTAssertEqual(mixer.log.last, "recorder: mixed 1.0 +input")
    }

    // C13: once a second while a stream is open, the mixer's meters go into the event stream: the
    // output's and each mixed session's, and an xrun event when a session missed periods; nothing
    // when the mixer has not moved.
    func testC13MetersGoIntoTheEventStreamOnceASecond() throws {
        launchActive("music", try AudioConfiguration(category: .playback))
        var reading = mixer.meterReading
        reading.output.periods = 100
        reading.output.level = AudioLevelReading(peakDBFS: -6.02, rmsDBFS: -9.03)
        reading.sessions["music"] = AudioSessionMeter(
            level: AudioLevelReading(peakDBFS: -6.02, rmsDBFS: -9.03), framesRendered: 48_000, xruns: 2)
        mixer.meterReading = reading
        host.advance(by: .seconds(1))
        XCTAssertEqual(
            host.events.of(.audioMeter, guest: "music").map(\.message),
            ["peak -6.0 dBFS, rms -9.0 dBFS, 48000 frames, 2 xruns"])
        XCTAssertEqual(host.events.of(.audioMeter).filter { $0.guest == nil }.map(\.name), ["output"])
        XCTAssertEqual(host.events.of(.audioXrun, guest: "music").map(\.name), ["2"])
        XCTAssertEqual(host.guest("music")?.audio?.meter?.xruns, 2)
        XCTAssertEqual(host.status().audio?.mixer?.periods, 100)

        host.advance(by: .seconds(1))
        XCTAssertEqual(host.events.of(.audioMeter, guest: "music").count, 1, "the mixer has not moved")
        reading.output.periods = 200
        mixer.meterReading = reading
        host.advance(by: .seconds(1))
        XCTAssertEqual(host.events.of(.audioMeter, guest: "music").count, 2)
        XCTAssertEqual(host.events.of(.audioXrun, guest: "music").count, 1, "no new xruns")
    }

    // CONTRACT C13, O2: the mixer's overruns are measured for the metrics at each meter reading
    // that finds new ones, what is new only; a new mixer (its count back to 0) counts from there.
    func testC13O2TheMixersOverrunsAreMeasuredAsTheyComeIn() throws {
        launchActive("music", try AudioConfiguration(category: .playback))
        var reading = mixer.meterReading
        func meter(periods: UInt64, overruns: UInt64) {
            reading.output.periods = periods
            reading.output.overruns = overruns
            mixer.meterReading = reading
            host.advance(by: .seconds(1))
        }
        meter(periods: 100, overruns: 0)
        meter(periods: 200, overruns: 3)
        meter(periods: 300, overruns: 3)
        meter(periods: 400, overruns: 5)
        meter(periods: 500, overruns: 1)
        XCTAssertEqual(host.measurements.mixerOverruns, [3, 2, 1])
    }

    // CONTRACT X7: a session's bad samples (NaN, infinite, beyond +24 dBFS), which the mixer
    // silenced, are counted for the metrics at every meter reading that finds new ones, and named
    // in the event stream once per episode: at the first reading that finds some after one that
    // found none. The status shows the count.
    func testX7BadSamplesAreCountedAndNamedOncePerEpisode() throws {
        launchActive("music", try AudioConfiguration(category: .playback))
        var reading = mixer.meterReading
        var periods: UInt64 = 0
        func meter(bad: UInt64) {
            periods += 100
            reading.output.periods = periods
            reading.sessions["music"] = AudioSessionMeter(
                level: .silence, framesRendered: 48_000, xruns: 0, badSamples: bad)
            mixer.meterReading = reading
            host.advance(by: .seconds(1))
        }
        meter(bad: 0)
        XCTAssertEqual(host.events.of(.audioBadSamples).count, 0)
        meter(bad: 100)
        meter(bad: 200)
        meter(bad: 300)
        XCTAssertEqual(host.events.of(.audioBadSamples, guest: "music").map(\.name), ["100"], "once an episode")
        XCTAssertEqual(host.guest("music")?.audio?.meter?.badSamples, 300)
        meter(bad: 300)
        meter(bad: 350)
        XCTAssertEqual(host.events.of(.audioBadSamples, guest: "music").map(\.name), ["100", "50"], "a new episode")
        XCTAssertEqual(host.measurements.badSamples.map(\.guest), ["music", "music", "music", "music"])
        XCTAssertEqual(host.measurements.badSamples.map(\.count), [100, 100, 100, 50])
        let named = try XCTUnwrap(host.events.of(.audioBadSamples, guest: "music").first)
        XCTAssertTrue(named.humanLine.contains("audio-bad-samples music 100 rendered 100 samples"), named.humanLine)
    }
}
