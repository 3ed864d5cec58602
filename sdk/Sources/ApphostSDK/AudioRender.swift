import CApphost
import Synchronization

/// One period of the session's sound to render (`apphost_audio_buffer_t`, ABI 1.5), as a
/// renderer set with ``AudioSession/setRenderer(_:)`` receives it. Its pointers are the host
/// runtime's and valid only during the call: never keep them, nor the buffer.
public struct AudioRenderBuffer {
    /// The period's frames; the host's format, as ``AudioSession/periodFrames`` tells it.
    public let frameCount: Int
    /// Interleaved channels.
    public let channelCount: Int
    /// Frames per second.
    public let sampleRate: UInt32
    /// The period's number, counting from 0 when the host's mixer started; its first frame is
    /// frame `period * frameCount` of the host's output (``firstFrame``). Numbers go up by one
    /// from call to call, but skip the periods the session was not mixed or the guest was late,
    /// so that a tone computed from it stays in phase with the host's clock.
    public let period: UInt64
    /// Where the period goes: `frameCount * channelCount` samples, interleaved (frame 0's
    /// channels, then frame 1's ...), full scale -1 to 1. It holds silence when the renderer is
    /// called: what the renderer leaves alone stays silent.
    public let output: UnsafeMutableBufferPointer<Float>
    /// What the session records, in the same layout, for the categories that record
    /// (``AudioCategory/record``, ``AudioCategory/playAndRecord``); nil for the others.
    public let input: UnsafeBufferPointer<Float>?

    /// The first frame's position on the host's output: `period * frameCount`.
    public var firstFrame: UInt64 { period &* UInt64(frameCount) }

    /// Reads `raw`, whose `input` counts only when the host's struct holds it. Nil without an
    /// output.
    init?(_ raw: UnsafePointer<apphost_audio_buffer_t>) {
        let buffer = raw.pointee
        guard let output = buffer.output else { return nil }
        let samples = Int(buffer.frame_count) * Int(buffer.channel_count)
        frameCount = Int(buffer.frame_count)
        channelCount = Int(buffer.channel_count)
        sampleRate = buffer.sample_rate
        period = buffer.period
        self.output = UnsafeMutableBufferPointer(start: output, count: samples)
        let inputEnd =
            MemoryLayout<apphost_audio_buffer_t>.offset(of: \.input)! + MemoryLayout<UnsafeRawPointer>.size
        if Int(buffer.struct_size) >= inputEnd, let input = buffer.input {
            self.input = UnsafeBufferPointer(start: input, count: samples)
        } else {
            input = nil
        }
    }
}

/// What ``AudioSession/setRenderer(_:)`` takes: called once per period on the host runtime's
/// real-time audio thread (see there for its rules).
public typealias AudioRenderer = @Sendable (AudioRenderBuffer) -> Void

extension AudioSession {
    /// True when the host implements ABI 1.5 or later with the audio extension, so that it calls
    /// a renderer (``setRenderer(_:)``); an older host never does, and the guest plays nothing.
    /// Setting a renderer is harmless either way.
    public var canRender: Bool {
        guard isAvailable else { return false }
        let version = host.pointee.abi_version
        return version.major == 1 && version.minor >= 5
    }

    /// Sets the closure that renders the session's sound (CONTRACT C13), or removes it (nil:
    /// silence). Set it before activating, typically in `didFinishLaunching`.
    ///
    /// When it is called: once per period (10 ms at 48 kHz, 480 frames), only while the session
    /// is active and not interrupted, on a real-time thread the host's runtime owns: never on
    /// the main queue, never twice at once. Its output reaches the host's mix one period later;
    /// a period it has not finished by then is silence (an xrun: nobody waits for a late guest).
    ///
    /// The real-time rules: return well within a period, and never block. No locks another
    /// thread may hold (share values with the main queue through `Synchronization.Atomic`), no
    /// allocation (no arrays, strings or new objects), no `print` or other I/O, no `await`, no
    /// call into the host (``Apphost``, ``AudioSession``, ``GuestActor``). Avoid touching class
    /// references in it beyond the ones it captured: each may cost a retain and release.
    ///
    /// Thread-safe. The renderer is swapped atomically, so it may be replaced at any time; the
    /// one replaced may still finish the period it is in, and is released when the guest is
    /// unloaded.
    public func setRenderer(_ renderer: AudioRenderer?) {
        AudioRenderSlot.install(renderer)
    }
}

/// The renderer, for the audio thread to find without a lock: a retained box whose address an
/// atomic holds. A replaced box stays retained until the guest is unloaded (the runtime stops
/// the audio thread before deinit), since the audio thread may still be inside it.
enum AudioRenderSlot {
    private final class Box: Sendable {
        let render: AudioRenderer
        init(_ render: @escaping AudioRenderer) { self.render = render }
    }

    /// The current box's address, 0 for none.
    private static let current = Atomic<UInt>(0)
    /// The boxes replaced since the guest was loaded.
    private static let retired = Mutex<[Box]>([])

    static func install(_ renderer: AudioRenderer?) {
        let new = renderer.map { UInt(bitPattern: Unmanaged.passRetained(Box($0)).toOpaque()) } ?? 0
        let old = current.exchange(new, ordering: .acquiringAndReleasing)
        if let pointer = UnsafeRawPointer(bitPattern: old) {
            let box = Unmanaged<Box>.fromOpaque(pointer).takeRetainedValue()
            retired.withLock { $0.append(box) }
        }
    }

    /// The guest is unloaded and its audio thread stopped: every box goes.
    static func reset() {
        install(nil)
        retired.withLock { $0.removeAll() }
    }

    /// [audio-thread] Calls the current renderer, if any, without a lock, an allocation or a
    /// retain of its box.
    static func render(_ raw: UnsafePointer<apphost_audio_buffer_t>) {
        guard let pointer = UnsafeRawPointer(bitPattern: current.load(ordering: .acquiring)),
            let buffer = AudioRenderBuffer(raw)
        else { return }
        Unmanaged<Box>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.render(buffer) }
    }
}
