import ApphostModel

/// The host's mixer as the core sees it (CONTRACT C13): where sessions' sound goes. The core
/// decides, with the arbiter, which sessions sound and how loud; the mixer, on a real-time thread
/// of its own, collects what guests render and writes the mix to the host's output. Kept behind
/// this seam so that the core stays free of threads and I/O, and tests drive it with a fake.
///
/// Called on the host queue; `meters` from any thread.
public protocol AudioMixer: AnyObject, Sendable {
    /// A new stream for `guest`'s session: its shared memory, known to the mixer but not mixed
    /// yet, and what the guest's runtime needs to render into it. Throws one line saying why not
    /// (out of memory, descriptors, the mixer's table full).
    func openStream(for guest: String) throws(AudioMixerError) -> any AudioStream

    /// How `guest`'s session is mixed from now on. Returns the first period that certainly uses
    /// it (periods count from 0 at the mixer's start, `AudioOutputMeter.periods`), so that
    /// events can say from when a session is silent; nil when the guest has no stream.
    func setMix(of guest: String, _ mix: AudioMix) -> UInt64?

    /// Forgets `guest`'s stream: its runtime refused it, or the guest ended. Its memory goes once
    /// the mixer's thread has let go of it.
    func closeStream(for guest: String)

    /// What the mixer measures now.
    func meters() -> AudioMeters
}

/// A session's place in the mix.
public struct AudioMix: Sendable, Equatable {
    /// Active and not interrupted (C6): the mixer asks the guest for periods. A session that is
    /// not mixed is silent from the first period after the change, whatever it renders.
    public var mixed: Bool
    /// What its samples are multiplied by (C8, C9, C12: `AudioLevel.gain`).
    public var gain: Double
    /// Its category records: the mixer hands it the host's input each period.
    public var recordsInput: Bool

    public init(mixed: Bool, gain: Double, recordsInput: Bool) {
        self.mixed = mixed
        self.gain = gain
        self.recordsInput = recordsInput
    }

    public static let silent = AudioMix(mixed: false, gain: 0, recordsInput: false)
}

/// One session's shared memory as the guest's runtime takes it (AUDIO_STREAM in the wire): the
/// region's memfd and the eventfd that asks for each period. The stream owns both descriptors and
/// closes them when it goes; a channel hands the guest copies (dup) of them.
public protocol AudioStream: AnyObject, Sendable {
    var memoryDescriptor: Int32 { get }
    var wakeDescriptor: Int32 { get }
}

/// A stream as a call carries it: equal when it is the same stream.
public struct AudioStreamHandle: Sendable, Equatable {
    public let stream: any AudioStream

    public init(_ stream: any AudioStream) {
        self.stream = stream
    }

    public static func == (left: AudioStreamHandle, right: AudioStreamHandle) -> Bool {
        left.stream === right.stream
    }
}

/// Why the mixer made no stream: one line.
public struct AudioMixerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
