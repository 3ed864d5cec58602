/// Where the host's mix goes (`--audio-output`, CONTRACT C13).
public enum AudioOutputChoice: Sendable, Equatable, CustomStringConvertible {
    /// Nothing written: the mixer runs on the host's clock, guests render, meters measure.
    case null
    /// A WAV file of 32-bit float samples (ApphostMixing's mix_wav_sink.h).
    case wav(path: String)
    /// An ALSA playback device, such as `default`, `plughw:0` or `null` (ApphostALSA).
    case alsa(device: String)

    /// `null`, `wav:PATH` or `alsa:DEVICE`; nil, with why, otherwise.
    public static func parse(_ text: String) -> Result<AudioOutputChoice, ChoiceError> {
        if text == "null" { return .success(.null) }
        if let path = Choice.value(of: text, kind: "wav") { return .success(.wav(path: path)) }
        if let device = Choice.value(of: text, kind: "alsa") { return .success(.alsa(device: device)) }
        return .failure(
            ChoiceError("--audio-output must be null, wav:PATH or alsa:DEVICE, not \"\(text)\""))
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .wav(let path): "wav:\(path)"
        case .alsa(let device): "alsa:\(device)"
        }
    }
}

/// Where recording sessions' input comes from (`--audio-input`, CONTRACT C13).
public enum AudioInputChoice: Sendable, Equatable, CustomStringConvertible {
    /// Zeros.
    case silence
    /// A sine of this many hertz at half of full scale (-6 dBFS peak).
    case tone(hertz: Double)
    /// A WAV file at the host's rate, read whole and looped.
    case wav(path: String)
    /// An ALSA capture device.
    case alsa(device: String)

    /// `silence`, `tone:HZ`, `wav:PATH` or `alsa:DEVICE`; nil, with why, otherwise.
    public static func parse(_ text: String) -> Result<AudioInputChoice, ChoiceError> {
        if text == "silence" { return .success(.silence) }
        if let hertz = Choice.value(of: text, kind: "tone") {
            guard let value = Double(hertz), value.isFinite, value > 0 else {
                return .failure(ChoiceError("--audio-input tone:HZ needs a frequency in hertz, not \"\(hertz)\""))
            }
            return .success(.tone(hertz: value))
        }
        if let path = Choice.value(of: text, kind: "wav") { return .success(.wav(path: path)) }
        if let device = Choice.value(of: text, kind: "alsa") { return .success(.alsa(device: device)) }
        return .failure(
            ChoiceError("--audio-input must be silence, tone:HZ, wav:PATH or alsa:DEVICE, not \"\(text)\""))
    }

    public var description: String {
        switch self {
        case .silence: "silence"
        case .tone(let hertz): "tone:\(hertz.formatted())"
        case .wav(let path): "wav:\(path)"
        case .alsa(let device): "alsa:\(device)"
        }
    }
}

/// Why an audio option was refused: one line.
public struct ChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

private enum Choice {
    /// What follows `kind:` when it is not empty.
    static func value(of text: String, kind: String) -> String? {
        guard text.hasPrefix(kind + ":") else { return nil }
        let value = String(text.dropFirst(kind.count + 1))
        return value.isEmpty ? nil : value
    }
}

extension Double {
    /// 1000 rather than 1000.0.
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
