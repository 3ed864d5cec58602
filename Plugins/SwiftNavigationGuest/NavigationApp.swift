// Swift Navigation: short spoken prompts over whatever else plays, on ApphostSDK's
// `AudioSession` ("apphost.audio/1", ABI 1.4; its sound, ABI 1.5).
//
// A prompt's sound is a sine of 660 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the
// same sample on every channel, rendered while the prompt is on (`Tone`, at the end of this file).
//
// Its session is playback with duckOthers and interruptSpokenAudioAndMixWithOthers (CONTRACT C3,
// C4, C8): it mixes, so it interrupts no music; while a prompt plays the host lowers every other
// session by 20 dB (music goes on, quieter), and interrupts the sessions of spoken audio (a
// podcast pauses rather than talk under the prompt). The session is active only while a prompt
// plays: once it is over the app deactivates with notify-others, so that the host restores the
// others' level and tells the podcast it should resume (C7). A prompt is short: keep a ducking
// session active no longer than its sound.
//
// User actions (`apphost ctl action <scene> <action> <payload>`):
//   prompt [<ms>]   plays a prompt of <ms> milliseconds (2000 by default), timed with a host timer
//   status          logs the session
//
// Log lines (INFO), which the end-to-end tests match:
//   navigation: ready                          the session is set up
//   navigation: no audio                       WARNING, the host offers no audio extension
//   navigation: prompt playing                 active and rendering
//   navigation: prompt done                    deactivated, with notify-others
//   navigation: prompt already playing
//   navigation: prompt cut (interruption: <reason>)
//   navigation: activation refused (<refusal>)
//   navigation: media services reset
//   navigation: session <category> <options> active=<true|false>   (status)
//   navigation: <what> failed: <error>         WARNING
//
// It hears the session's events through `AudioSession.onEvent`, a closure that the host's
// callbacks run on the main queue, rather than the `events` stream of the other samples.
//
// It declares background audio (B9): a prompt started in background plays to its end, since a
// session that mixes may be activated there (C5), and the guest keeps running while it renders.

import ApphostSDK
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
final class NavigationApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.navigation", name: "Swift Navigation", version: "1.0.0", vendor: "apphost",
        summary: "Spoken prompts that duck music and pause podcasts while they play.",
        capabilities: [.backgroundAudio])

    private var host: Apphost?
    private var session: AudioSession?
    /// The timer that ends the prompt playing, if one is: the prompt sounds while it is set.
    private var prompt: BackgroundTimer? { didSet { tone.sounding.store(prompt != nil, ordering: .relaxed) } }
    /// The prompt's sound, rendered on the audio thread.
    private let tone = Tone()
    /// A prompt was asked for and its activation is awaited.
    private var starting = false

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        let session = host.audioSession
        guard session.isAvailable else { return log("navigation: no audio", level: .warning) }
        self.session = session
        // Harmless on a host older than ABI 1.5, which never calls it.
        session.setRenderer { [tone] buffer in tone.render(buffer) }
        setUp()
        // The closure, rather than the `events` stream the other samples use: it runs inside the
        // host's callback, so a prompt cut by a call is stopped before the callback returns.
        session.onEvent = { [weak self] event in self?.handle(event) }
    }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate { NavigationWindow(app: self) }

    /// Mixes (both options imply mixWithOthers), ducks others, and pauses spoken audio (C3, C4).
    private func setUp() {
        do {
            try session?.setCategory(.playback, options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers])
            log("navigation: ready")
        } catch {
            log("navigation: setCategory failed: \(error)", level: .warning)
        }
    }

    func perform(_ action: String, payload: String) {
        guard let session else { return log("navigation: \(action) failed: unsupported", level: .warning) }
        switch action {
        case "prompt":
            guard prompt == nil, !starting else { return log("navigation: prompt already playing") }
            let milliseconds = Int(payload) ?? 2000
            starting = true
            Task { await play(for: .milliseconds(max(milliseconds, 1))) }
        case "status":
            let state = (try? session.currentState()) ?? .initial
            log("navigation: session \(state.category) \(state.options) active=\(state.isActive)")
        default:
            log("navigation: unknown action \(action)", level: .warning)
        }
    }

    /// Activates, renders for `length`, then ends the prompt.
    private func play(for length: Duration) async {
        defer { starting = false }
        guard let session, let background = host?.background else { return }
        do {
            try await session.activate()
            try session.setRendering(true)
            log("navigation: prompt playing")
            // A host timer: it runs on the main queue, and is held while the guest is suspended.
            prompt = try background.schedule(after: length) { [weak self] in self?.finishPrompt() }
        } catch let refusal as AudioActivationError {
            log("navigation: activation refused (\(refusal))")
        } catch {
            log("navigation: prompt failed: \(error)", level: .warning)
            finishPrompt()
        }
    }

    /// The prompt is over: deactivate at once, with notify-others, so that the music comes back up
    /// and the podcast hears it should resume (C7, C8).
    private func finishPrompt() {
        prompt?.cancel()
        prompt = nil
        do {
            try session?.setRendering(false)
            try session?.deactivate(notifyOthers: true)
            log("navigation: prompt done")
        } catch {
            log("navigation: deactivate failed: \(error)", level: .warning)
        }
    }

    private func handle(_ event: AudioSessionEvent) {
        switch event {
        case .interruptionBegan(let reason):
            // A call, say: the prompt is stale by the time it ends, so it is not played again. It
            // is over as if it had ended: the sessions it interrupted hear so (the session is
            // inactive already, and deactivating it notifies all the same).
            guard let timer = prompt else { return }
            timer.cancel()
            prompt = nil
            log("navigation: prompt cut (interruption: \(reason))")
            try? session?.deactivate(notifyOthers: true)
        case .mediaServicesReset:
            prompt?.cancel()
            prompt = nil
            log("navigation: media services reset")
            setUp()
        default:
            break
        }
    }

    private func log(_ line: String, level: LogLevel = .info) { host?.log(level: level, line) }
}

/// The map's one window: its user actions go to the app.
final class NavigationWindow: SceneDelegate {
    unowned let app: NavigationApp
    init(app: NavigationApp) { self.app = app }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {
        app.perform(action, payload: String(decoding: payload, as: UTF8.self))
    }
}

/// A prompt's sound: a sine of 660 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the same sample
/// on every channel, which the session's renderer writes on the host runtime's audio thread.
final class Tone: Sendable {
    static let frequency = 660.0
    static let amplitude = 0.5
    /// Whether the tone sounds: set on the main queue, read by the audio thread, without a lock.
    let sounding = Atomic<Bool>(false)

    /// [audio-thread] Writes the tone while it sounds; the output holds silence otherwise. No
    /// lock, no allocation, no I/O. The phase comes from each frame's position on the host's
    /// clock (`firstFrame + frame`), taken modulo the rate, a whole number of cycles, so the tone
    /// has no clicks across periods, pauses or late periods.
    func render(_ buffer: AudioRenderBuffer) {
        guard sounding.load(ordering: .relaxed), buffer.sampleRate > 0 else { return }
        let rate = UInt64(buffer.sampleRate)
        let step = 2 * Double.pi * Self.frequency / Double(rate)
        for frame in 0..<buffer.frameCount {
            let position = (buffer.firstFrame + UInt64(frame)) % rate
            let value = Float(Self.amplitude * sin(step * Double(position)))
            for channel in 0..<buffer.channelCount { buffer.output[frame * buffer.channelCount + channel] = value }
        }
    }
}
