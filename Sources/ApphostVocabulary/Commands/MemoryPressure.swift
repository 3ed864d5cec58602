/// How hard the host is pressed for memory (A4).
public enum MemoryPressure: String, Sendable, CaseIterable {
    /// Running guests are warned.
    case warning
    /// Guests are warned, then suspended guests are terminated, least recently used first.
    case critical
}
