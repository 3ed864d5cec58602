import ApphostModel

/// How the host runs audio sessions (CONTRACT C1 to C15): its format, and how long a guest may go
/// on playing after its output went away before the host says it does not conform (C10).
public struct AudioPolicy: Sendable, Equatable {
    public var format: AudioFormat
    public var routeConformanceGrace: Duration

    public init(format: AudioFormat = .standard, routeConformanceGrace: Duration = .seconds(1)) {
        self.format = format
        self.routeConformanceGrace = routeConformanceGrace
    }
}
