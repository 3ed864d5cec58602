// Swift Navigation: short spoken prompts over whatever else plays, on ApphostSDK's
// `AudioSession` ("apphost.audio/1", ABI 1.4).
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

@main
final class NavigationApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.navigation", name: "Swift Navigation", version: "1.0.0", vendor: "apphost",
        summary: "Spoken prompts that duck music and pause podcasts while they play.",
        capabilities: [.backgroundAudio])

    private var host: Apphost?
    private var session: AudioSession?
    /// The timer that ends the prompt playing, if one is.
    private var prompt: BackgroundTimer?
    /// A prompt was asked for and its activation is awaited.
    private var starting = false

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        let session = host.audioSession
        guard session.isAvailable else { return log("navigation: no audio", level: .warning) }
        self.session = session
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
