// Swift Sample: the C sample (Plugins/CSampleGuest) again, on the Swift SDK.
//
// Every callback logs one INFO line, "callback <name>" for app callbacks and
// "callback <name> scene=<handle>" for scene callbacks, with the C ABI's
// callback names; the end-to-end tests grep for them. Each scene keeps a
// counter of how often it became active, saved as decimal text when it
// enters background and when the app terminates, and restored on connect.
//
// The host calls everything here on the guest's main queue, one call at a
// time: the delegates are isolated to GuestActor, that queue, so plain stored
// properties need no locks.

import ApphostSDK

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
final class SampleApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.swift", name: "Swift Sample", version: "1.0.0", vendor: "apphost",
        summary: "Counts how often each scene becomes active and restores the count.",
        capabilities: [.multipleScenes])

    /// Set at launch; the scenes reach the host through their `Scene`.
    private var host: Apphost?
    /// The live scene delegates, so that will_terminate can save them all.
    private var scenes: [SampleScene] = []

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        host.log(level: .info, "callback did_finish_launching")
        // Lets tests fail a launch on purpose (CONTRACT A2), as the C sample does.
        if let fail = getenv("APPHOST_SAMPLE_FAIL_LAUNCH"), String(cString: fail) == "1" {
            host.log(level: .error, "launch failed on purpose: APPHOST_SAMPLE_FAIL_LAUNCH=1")
            throw ApphostError.guestFailed
        }
    }

    func willTerminate() {
        host?.log(level: .info, "callback will_terminate")
        // Last chance to save (CONTRACT A3); scenes get no callbacks after this.
        for scene in scenes { scene.save() }
        scenes.removeAll()
    }

    func didReceiveMemoryWarning() {
        host?.log(level: .info, "callback did_receive_memory_warning")
    }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate {
        let scene = SampleScene(onDisconnect: { [unowned self] gone in
            scenes.removeAll { $0 === gone }
        })
        scenes.append(scene)
        return scene
    }
}

final class SampleScene: SceneDelegate {
    private var scene: Scene?
    /// How often the scene became active, across connections and launches.
    private var counter: UInt64 = 0
    private let onDisconnect: (SampleScene) -> Void

    init(onDisconnect: @escaping (SampleScene) -> Void) {
        self.onDisconnect = onDisconnect
    }

    private func log(_ callback: String, _ scene: Scene) {
        scene.host.log(level: .info, "callback \(callback) scene=\(scene.handle)")
    }

    func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?) {
        self.scene = scene
        log("will_connect", scene)
        // The state is the counter as decimal text, such as "3"; anything
        // else counts as no state.
        if let restorationData {
            let digits = !restorationData.isEmpty && restorationData.allSatisfy { (0x30...0x39).contains($0) }
            if digits, let value = UInt64(String(decoding: restorationData, as: UTF8.self)) {
                counter = value
            } else {
                scene.host.log(level: .warning, "unreadable saved state ignored scene=\(scene.handle)")
            }
        }
        scene.host.log(level: .info, "restored counter=\(counter) scene=\(scene.handle)")
    }

    func sceneWillEnterForeground(_ scene: Scene) { log("will_enter_foreground", scene) }

    func sceneDidBecomeActive(_ scene: Scene) {
        log("did_become_active", scene)
        counter += 1
    }

    func sceneWillResignActive(_ scene: Scene) { log("will_resign_active", scene) }

    func sceneDidEnterBackground(_ scene: Scene) {
        log("did_enter_background", scene)
        // The host may disconnect a background scene without asking (CONTRACT S6).
        save()
    }

    func sceneDidDisconnect(_ scene: Scene) {
        log("did_disconnect", scene)
        // The handle is already invalid; the host keeps what was saved last.
        self.scene = nil
        onDisconnect(self)
    }

    func save() {
        guard let scene else { return }
        let counter = counter
        let state = Array(String(counter).utf8)
        do {
            // ABI 1.7: the host says when the state is stored for good (CONTRACT X5), as a
            // database's commit tells its client; an older host only takes it.
            try scene.saveState(state) { error in
                scene.host.log(
                    level: error == nil ? .info : .warning,
                    "stored counter=\(counter) scene=\(scene.handle): \(error.map { "\($0)" } ?? "ok")")
            }
        } catch ApphostError.unsupported {
            do {
                try scene.saveState(state)
            } catch {
                scene.host.log(level: .warning, "save_scene_state failed: \(error) scene=\(scene.handle)")
            }
        } catch {
            scene.host.log(level: .warning, "save_scene_state failed: \(error) scene=\(scene.handle)")
        }
    }
}
