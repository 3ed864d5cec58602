import ApphostVocabulary

/// What the host learns of its memory (CONTRACT A4), handed to `HostCore.memory(_:)`.
public enum MemorySignal: Equatable, Sendable {
    /// Warn every running guest; a suspended one gets one warning when it resumes (B8). At
    /// `.critical` the host then terminates its suspended guests, least recently used first.
    case warning(MemoryPressure)
    /// A reading of the host's memory (its own and its workers'), checked against its limit.
    /// Give it at a steady pace, so that memory freed by a termination shows before the next one.
    case usage(bytes: UInt64)
}
