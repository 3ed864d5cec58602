// Swift Game: a game's sound on ApphostSDK's `AudioSession` ("apphost.audio/1", ABI 1.4; its
// sound, ABI 1.5).
//
// Its soundtrack is a sine of 440 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the same
// sample on every channel, rendered while the sound is on and the secondary-audio hint has not
// silenced it (`Tone`, at the end of this file; the effects have no sound of their own here).
//
// Its session is ambient (CONTRACT C2): it mixes with whatever else plays, interrupts nothing,
// and is silenced by the silence switch. The game does nothing for the switch: the host mutes an
// ambient session in its mix while the switch is on (C9), and the game cannot tell, as a phone's
// game cannot. Its sound has two parts: effects, which always play, and a soundtrack, which is
// secondary audio: when another app's music plays, the host hints that secondary audio should be
// silenced (C11), and the game turns its soundtrack off until the hint says otherwise. Ambient
// sound does not play in background: the host interrupts the session when the game leaves the
// foreground, and the game activates it again whenever its window becomes active.
//
// User actions (`apphost ctl action <scene> <action>`): status.
//
// Log lines (INFO), which the end-to-end tests match:
//   game: ready                                    the session is set up
//   game: no audio                                 WARNING, the host offers no audio extension
//   game: sound on (soundtrack on|off)             active and rendering
//   game: sound off (interruption: <reason>)       interrupted (leaving the foreground, a call)
//   game: soundtrack off (secondary audio hint)    another app's music started
//   game: soundtrack on (secondary audio hint)     ... and stopped
//   game: activation refused (<refusal>)
//   game: media services reset
//   game: session <category> active=<true|false> gain=<gain>   (status)
//   game: <what> failed: <error>                   WARNING

import ApphostSDK
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
final class GameApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.game", name: "Swift Game", version: "1.0.0", vendor: "apphost",
        summary: "A game's ambient sound: mixes with music, obeys the silence switch and the secondary-audio hint.")

    private var host: Apphost?
    private var session: AudioSession?
    /// Off while the host hints that secondary audio should be silenced (C11).
    private var soundtrackOn = true { didSet { updateTone() } }
    /// The game renders sound (effects, and the soundtrack when it is on).
    private var soundOn = false { didSet { updateTone() } }
    /// The soundtrack, rendered on the audio thread.
    private let tone = Tone()

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        let session = host.audioSession
        guard session.isAvailable else { return log("game: no audio", level: .warning) }
        self.session = session
        // Harmless on a host older than ABI 1.5, which never calls it.
        session.setRenderer { [tone] buffer in tone.render(buffer) }
        setUp()
        Task { for await event in session.events { handle(event) } }
    }

    /// The soundtrack sounds while the sound is on and the hint leaves it on.
    private func updateTone() { tone.sounding.store(soundOn && soundtrackOn, ordering: .relaxed) }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate { GameWindow(app: self) }

    /// Ambient: mixes always, so the options are left out (C3 refuses mixWithOthers here anyway).
    private func setUp() {
        do {
            try session?.setCategory(.ambient)
            log("game: ready")
        } catch {
            log("game: setCategory failed: \(error)", level: .warning)
        }
    }

    /// The game's window is active: sound on. Activating an active session changes nothing.
    func startSound() {
        guard let session else { return }
        Task {
            do {
                try await session.activate()
                try session.setRendering(true)
                soundOn = true
                log("game: sound on (soundtrack \(soundtrackOn ? "on" : "off"))")
            } catch let refusal as AudioActivationError {
                log("game: activation refused (\(refusal))")  // a call holds audio (C5)
            } catch {
                log("game: activate failed: \(error)", level: .warning)
            }
        }
    }

    func perform(_ action: String) {
        guard action == "status" else { return log("game: unknown action \(action)", level: .warning) }
        let state = (try? session?.currentState()) ?? .initial
        log("game: session \(state.category) active=\(state.isActive) gain=\(state.gain)")
    }

    private func handle(_ event: AudioSessionEvent) {
        switch event {
        case .interruptionBegan(let reason):
            soundOn = false
            log("game: sound off (interruption: \(reason))")
        case .interruptionEnded(_, let shouldResume):
            // A game comes back when its window does; after a call that ended, at once.
            if shouldResume, host?.appState == .active { startSound() }
        case .secondaryAudioHint(let silence):
            soundtrackOn = !silence
            log("game: soundtrack \(silence ? "off" : "on") (secondary audio hint)")
        case .mediaServicesReset:
            soundOn = false
            log("game: media services reset")
            setUp()
            if host?.appState == .active { startSound() }
        case .routeChanged:
            break  // the game plays wherever the sound goes
        case .renderDemoted(let reason):
            log("game: render demoted (\(reason))", level: .warning)
        }
    }

    private func log(_ line: String, level: LogLevel = .info) { host?.log(level: level, line) }
}

/// The game's one window: sound on whenever it becomes active.
final class GameWindow: SceneDelegate {
    unowned let app: GameApp
    init(app: GameApp) { self.app = app }

    func sceneDidBecomeActive(_ scene: Scene) { app.startSound() }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) { app.perform(action) }
}

/// The game's soundtrack: a sine of 440 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the same sample
/// on every channel, which the session's renderer writes on the host runtime's audio thread.
final class Tone: Sendable {
    static let frequency = 440.0
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
