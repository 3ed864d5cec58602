import ApphostVocabulary

/// `{"command":"memory-warning","level":"warning"|"critical"}`: memory pressure (A4); the level
/// is warning when absent.
public struct MemoryWarningCommand: ImmediateCommand, Equatable {
    public static let name = "memory-warning"
    public var level: MemoryPressure

    public init(level: MemoryPressure = .warning) { self.level = level }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.decodeIfPresent(String.self, forKey: .level) ?? MemoryPressure.warning.rawValue
        guard let level = MemoryPressure(rawValue: raw) else {
            throw ControlProtocolError("memory-warning's \"level\" is warning or critical, not \"\(raw)\"")
        }
        self.level = level
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(level.rawValue, forKey: .level)
    }

    private enum CodingKeys: String, CodingKey { case level }

    public func perform(on host: any ControlTarget) -> String {
        host.memoryWarning(level: level)
        return level == .critical
            ? "running guests warned; suspended guests terminated, least recently used first"
            : "running guests warned; suspended guests will be on resume"
    }
}
