import ApphostModel
import ApphostVocabulary

/// B8, S6, S7: what waits for a stopped guest beside its audio (`HeldAudio`) and its background
/// timers and work (`BackgroundScheduler`): the scenes the host disconnected meanwhile, which it
/// hears of first when it runs again, and one memory warning however many were sent (A4).
struct HeldDeliveries {
    private var disconnects: [SceneHandle] = []
    private var memoryWarning = false

    mutating func holdDisconnect(_ scene: SceneHandle) { disconnects.append(scene) }

    mutating func holdMemoryWarning() { memoryWarning = true }

    /// The scenes disconnected meanwhile, in order; none is held after.
    mutating func takeDisconnects() -> [SceneHandle] {
        defer { disconnects = [] }
        return disconnects
    }

    /// Whether a memory warning waited; none does after.
    mutating func takeMemoryWarning() -> Bool {
        defer { memoryWarning = false }
        return memoryWarning
    }
}
