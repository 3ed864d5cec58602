import Foundation

/// Test signals, as interleaved float32 periods of identical channels.
enum Signals {
    static let sampleRate = 48_000
    static let channels = 2
    /// 10 ms: the host's default period.
    static let periodFrames = 480

    /// A sine of `frequency` Hz and `amplitude`, the frames `firstFrame ..< firstFrame + frames`
    /// of it, each frame the same sample on every channel.
    static func sine(
        frequency: Double, amplitude: Double, firstFrame: Int, frames: Int = periodFrames, channels: Int = channels
    ) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let time = Double(firstFrame + frame) / Double(sampleRate)
            let value = Float(amplitude * sin(2 * Double.pi * frequency * time))
            for channel in 0..<channels { samples[frame * channels + channel] = value }
        }
        return samples
    }

    /// 20 log10, as dBFS.
    static func dB(_ linear: Double) -> Double { 20 * log10(linear) }
}

/// Text the C library wrote into a caller's buffer.
enum CText {
    /// The C string in `buffer`, up to its NUL.
    static func of(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
