/// Why the host made a transition (CONTRACT A5).
public enum TransitionReason: String, Sendable, Codable, CaseIterable {
    /// An operator or user asked for it (launch, switch, home, alert, terminate).
    case requested
    /// The host's own policy decided it (for example a scene connected for background work).
    case automatic
    /// The guest did it itself (for example dismissed its own modal with dismiss_modal).
    case guest
    case budgetExpired
    case watchdog
    case crash
    case memory
    case shutdown
    /// The guest flooded the host with requests, past its limit for longer than the host allows
    /// (CONTRACT X7).
    case flooding
}
