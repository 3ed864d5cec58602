// Swift Podcast: a podcast player on ApphostSDK's `AudioSession` ("apphost.audio/1", ABI 1.4;
// its sound, ABI 1.5), the Swift twin of the C music player (Plugins/CMusicGuest), for speech.
//
// Its "speech" is a sine of 220 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the same
// sample on every channel, rendered while it plays (`Tone`, at the end of this file).
//
// Its session is playback with the spokenAudio mode (CONTRACT C2, C4): not silenced by the
// silence switch, it interrupts the other sessions that do not mix and may go on in background
// (it declares background audio, B9). Being speech, it is never ducked: a navigation prompt that
// ducks others, or says interruptSpokenAudioAndMixWithOthers, interrupts it instead, since
// speech under speech cannot be followed; when the prompt is over and its app deactivates with
// notify-others, the podcast hears that it should resume, and does (C7).
//
// As on a phone: "pause" stops rendering and keeps the session active (playing again needs no
// new activation, and the apps it interrupted are not told to resume because its user paused);
// "stop" deactivates with notify-others; interrupted, it shows paused and resumes only when told
// it should; when the headphones come out it pauses (C10). Note that a guest in background may
// activate only a session that mixes (C5): resuming there is refused, and the podcast stays
// paused until its user plays again.
//
// User actions (`apphost ctl action <scene> <action>`): play, pause, stop, status.
//
// Log lines (INFO), which the end-to-end tests match:
//   podcast: ready                              the session is set up
//   podcast: no audio                           WARNING, the host offers no audio extension
//   podcast: playing | resumed                  the user's play, or a resume, took effect
//   podcast: paused                             the user paused
//   podcast: paused (interruption: <reason>)    interrupted while playing
//   podcast: interrupted while paused (<reason>)
//   podcast: paused (route: <output> gone)      the headphones came out
//   podcast: route <output> -> <output> (<reason>)
//   podcast: stays paused (should_resume 0)     an interruption ended without leave to resume
//   podcast: stays paused (paused by the user)
//   podcast: activation refused (<refusal>)     the host refused to activate (C5)
//   podcast: stopped
//   podcast: media services reset
//   podcast: session <category> <mode> active=<true|false> output=<output>   (status)
//   podcast: <what> failed: <error>             WARNING
//
// Threading: the app is isolated to GuestActor, the guest's main queue, where the host calls it;
// the session's events arrive there too, through the `for await` loop of `didFinishLaunching`.

import ApphostSDK
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
final class PodcastApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.podcast", name: "Swift Podcast", version: "1.0.0", vendor: "apphost",
        summary: "A podcast player: spoken audio, paused (never ducked) by prompts, resumes when told.",
        capabilities: [.backgroundAudio])

    private var host: Apphost?
    /// Nil when the host offers no audio: the player then plays nothing.
    private var session: AudioSession?
    /// The user wants to listen: from "play" until "pause", "stop" or the headphones coming out.
    /// An interruption does not change it: the user did not pause.
    private var wantsToPlay = false
    /// Rendering: the host was told `setRendering(true)` since the last activation.
    private var playing = false { didSet { tone.sounding.store(playing, ordering: .relaxed) } }
    /// The podcast's sound, rendered on the audio thread while `playing`.
    private let tone = Tone()
    /// An activation is awaited.
    private var activating = false

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        let session = host.audioSession
        guard session.isAvailable else { return log("podcast: no audio", level: .warning) }
        self.session = session
        // Harmless on a host older than ABI 1.5, which never calls it.
        session.setRenderer { [tone] buffer in tone.render(buffer) }
        setUp()
        // Runs on GuestActor, as this method does, for as long as the guest runs.
        Task { for await event in session.events { handle(event) } }
    }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate { PodcastWindow(app: self) }

    /// Playback of speech (C4). Options are left out: it does not mix, so playing it interrupts
    /// the other players.
    private func setUp() {
        do {
            try session?.setCategory(.playback, mode: .spokenAudio)
            log("podcast: ready")
        } catch {
            log("podcast: setCategory failed: \(error)", level: .warning)
        }
    }

    // MARK: - What the user does

    func perform(_ action: String) {
        guard let session else { return log("podcast: \(action) failed: unsupported", level: .warning) }
        switch action {
        case "play":
            wantsToPlay = true
            if playing { return log("podcast: playing") }
            Task { await play(resuming: false) }
        case "pause":
            wantsToPlay = false
            stopRendering()
            log("podcast: paused")  // the session stays active
        case "stop":
            wantsToPlay = false
            stopRendering()
            do {
                try session.deactivate(notifyOthers: true)  // what it interrupted may resume (C7)
                log("podcast: stopped")
            } catch {
                log("podcast: deactivate failed: \(error)", level: .warning)
            }
        case "status":
            let state = (try? session.currentState()) ?? .initial
            log(
                "podcast: session \(state.category) \(state.mode) active=\(state.isActive) output=\(state.route.output)"
            )
        default:
            log("podcast: unknown action \(action)", level: .warning)
        }
    }

    /// Activates the session (an active one costs nothing), then renders if the user still wants
    /// to listen.
    private func play(resuming: Bool) async {
        guard let session, !activating else { return }
        activating = true
        defer { activating = false }
        do {
            try await session.activate()
            guard wantsToPlay, !playing else { return }  // paused while the host decided
            // Say it after every activation: the host forgets it when the session goes inactive.
            try session.setRendering(true)
            playing = true
            log(resuming ? "podcast: resumed" : "podcast: playing")
        } catch let refusal as AudioActivationError {
            log("podcast: activation refused (\(refusal))")  // a call, or in background (C5)
        } catch {
            log("podcast: activate failed: \(error)", level: .warning)
        }
    }

    private func stopRendering() {
        guard playing else { return }
        playing = false
        do { try session?.setRendering(false) } catch { log("podcast: setRendering failed: \(error)", level: .warning) }
    }

    // MARK: - What the host says

    private func handle(_ event: AudioSessionEvent) {
        switch event {
        case .interruptionBegan(let reason):
            // Already inactive (C6): the host forgot the rendering, nothing to tell it.
            if playing {
                playing = false
                log("podcast: paused (interruption: \(reason))")
            } else {
                log("podcast: interrupted while paused (\(reason))")
            }
        case .interruptionEnded(_, let shouldResume):
            if !shouldResume {
                log("podcast: stays paused (should_resume 0)")
            } else if !wantsToPlay {
                log("podcast: stays paused (paused by the user)")
            } else {
                Task { await play(resuming: true) }
            }
        case .routeChanged(let reason, let previous, let current):
            log("podcast: route \(previous.output) -> \(current.output) (\(reason))")
            if reason == .oldDeviceUnavailable, playing {
                // The headphones came out: never go on out of the speaker (C10).
                wantsToPlay = false
                stopRendering()
                log("podcast: paused (route: \(previous.output) gone)")
            }
        case .secondaryAudioHint:
            break  // speech is primary audio
        case .mediaServicesReset:
            // Back to soloAmbient and inactive (C15): set up again, and wait for the user.
            playing = false
            wantsToPlay = false
            log("podcast: media services reset")
            setUp()
        case .renderDemoted(let reason):
            // Its render runs at ordinary priority from now on (X7): the voice may break up.
            log("podcast: render demoted (\(reason))", level: .warning)
        }
    }

    private func log(_ line: String, level: LogLevel = .info) { host?.log(level: level, line) }
}

/// The player's one window: its user actions go to the app.
final class PodcastWindow: SceneDelegate {
    unowned let app: PodcastApp
    init(app: PodcastApp) { self.app = app }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) { app.perform(action) }
}

/// The podcast's sound: a sine of 220 Hz at amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS), the same sample
/// on every channel, which the session's renderer writes on the host runtime's audio thread.
final class Tone: Sendable {
    static let frequency = 220.0
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
