import ApphostModel
import ApphostSound
import ArgumentParser

/// The host's sound (CONTRACT C13): its format, where the mix goes, where recording sessions'
/// input comes from, and the mixer's clock.
struct AudioOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where the mix goes: null (nothing, paced by the host's clock), wav:PATH (a 32-bit float WAV file) or alsa:DEVICE.",
            valueName: "sink"))
    var audioOutput: String = "null"

    @Option(
        help: ArgumentHelp(
            "What recording sessions hear: silence, tone:HZ (a sine at -6 dBFS), wav:PATH (looped) or alsa:DEVICE.",
            valueName: "source"))
    var audioInput: String = "silence"

    @Option(
        help: ArgumentHelp(
            "What paces the mixer: real (the host's monotonic clock) or free (as fast as the guests render: offline renders to a file).",
            valueName: "clock"))
    var audioClock: String = "real"

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per second.", valueName: "hertz"))
    var audioRate: Int = 48_000

    @Option(parsing: .unconditional, help: ArgumentHelp("Interleaved channels.", valueName: "count"))
    var audioChannels: Int = 2

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Frames per period: the mixer's cycle (480 is 10 ms at 48 kHz).", valueName: "frames"))
    var audioPeriod: Int = 480

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop mixing after this much sound, in seconds (an offline render of a set length); the host runs on.",
            valueName: "seconds"))
    var audioLength: Double?

    func validate() throws {
        _ = try configuration()
    }

    /// The mixer's configuration, or the one-line error that refuses the options.
    func configuration() throws -> MixerConfiguration {
        guard (8_000...192_000).contains(audioRate) else {
            throw ValidationError("--audio-rate must be from 8000 to 192000 hertz, not \(audioRate)")
        }
        guard (1...8).contains(audioChannels) else {
            throw ValidationError("--audio-channels must be from 1 to 8, not \(audioChannels)")
        }
        guard (16...8_192).contains(audioPeriod) else {
            throw ValidationError("--audio-period must be from 16 to 8192 frames, not \(audioPeriod)")
        }
        guard audioClock == "real" || audioClock == "free" else {
            throw ValidationError("--audio-clock must be real or free, not \"\(audioClock)\"")
        }
        let output: AudioOutputChoice
        switch AudioOutputChoice.parse(audioOutput) {
        case .success(let choice): output = choice
        case .failure(let error): throw ValidationError(error.description)
        }
        let input: AudioInputChoice
        switch AudioInputChoice.parse(audioInput) {
        case .success(let choice): input = choice
        case .failure(let error): throw ValidationError(error.description)
        }
        if case .tone(let hertz) = input, hertz >= Double(audioRate) / 2 {
            throw ValidationError(
                "--audio-input tone:\(hertz) is at or above half of --audio-rate \(audioRate) (the Nyquist limit)")
        }
        var periods: UInt64?
        if let audioLength {
            guard audioLength.isFinite, audioLength > 0, audioLength <= 86_400 else {
                throw ValidationError(
                    "--audio-length must be more than 0 and at most 86400 seconds, not \(audioLength)")
            }
            periods = UInt64((audioLength * Double(audioRate) / Double(audioPeriod)).rounded(.up))
        }
        return MixerConfiguration(
            format: AudioFormat(sampleRate: audioRate, periodFrames: audioPeriod, channelCount: audioChannels),
            output: output, input: input, freeClock: audioClock == "free", periods: periods)
    }
}
