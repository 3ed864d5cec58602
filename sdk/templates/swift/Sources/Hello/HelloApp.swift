// A guest to start from: the Swift twin of the C template (sdk/templates/c/hello.c).
//
// What it does, and what a guest of yours will do too:
// - restores what its scene saved (a count) when the scene connects (CONTRACT S12);
// - counts the user's "count" actions (`apphost ctl action <scene> count`) and saves each;
// - when its scene leaves the foreground, saves, and finishes a short async "sync" in
//   background: `startTask` begins the background task in the callback (B6), and ends it when
//   the work returns.
//
// It logs, for you and for the tests that build this template:
//   hello: connected, count <n>     a scene connected with what it saved
//   hello: count <n>                after a "count" action
//   hello: synced <n>               the background sync finished and its task ended
//   hello: no time to sync          WARNING: the host gave no background time (B1)
//   hello: sync expired             WARNING: the budget ran short first (B3)
//
// The app and its scene delegates are isolated to GuestActor, the guest's main queue, where the
// host calls them one at a time: their properties need no locks, and a Task started there runs
// there too, between its awaits.

import ApphostSDK

@main
final class HelloApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.example.hello",  // yours, reverse-DNS; never change it, it names the saved state
        name: "Hello", version: "1.0.0", summary: "Counts, saves, and syncs in background.",
        capabilities: [.backgroundTasks])

    required init() {}

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate { HelloScene() }
}

final class HelloScene: SceneDelegate {
    private var count = 0
    private let store = Store()

    func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?) {
        count = Int(String(decoding: restorationData ?? [], as: UTF8.self)) ?? 0
        scene.host.log(level: .info, "hello: connected, count \(count)")
    }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {
        guard action == "count" else { return }
        count += 1
        save(scene)
        scene.host.log(level: .info, "hello: count \(count)")
    }

    func sceneDidEnterBackground(_ scene: Scene) {
        save(scene)
        do {
            // Begins the background task now, and runs the closure as a Task on GuestActor.
            try scene.host.background?.startTask("sync") {
                do {
                    try await store.sync(count)
                    scene.host.log(level: .info, "hello: synced \(count)")
                } catch is CancellationError {
                    scene.host.log(level: .warning, "hello: sync expired")
                }
            }
        } catch {
            scene.host.log(level: .warning, "hello: no time to sync")
        }
    }

    private func save(_ scene: Scene) {
        try? scene.saveState(Array(String(count).utf8))
    }
}

/// Stands in for real work, such as sending the count to a server: it takes 100 ms.
final class Store: Sendable {
    func sync(_ count: Int) async throws {
        try await Task.sleep(for: .milliseconds(100))
    }
}
