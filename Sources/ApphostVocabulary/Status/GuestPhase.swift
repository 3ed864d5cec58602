/// Where a guest is in its life, beside the app state the contract defines.
public enum GuestPhase: String, Sendable, Codable {
    case notRunning
    case launching
    case running
    case terminating
}
