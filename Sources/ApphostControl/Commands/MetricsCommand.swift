import ApphostVocabulary

/// `{"command":"metrics"}`: the host's metrics in Prometheus' text format (CONTRACT O2), the
/// exposition an HTTP scrape of /metrics would get.
public struct MetricsCommand: ControlCommand, Equatable {
    public static let name = "metrics"
    /// The host's health matters most while it goes down.
    public static var answeredDuringShutdown: Bool { true }

    public init() {}

    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<MetricsExposition, HostCommandError>) -> Void
    ) {
        host.controlMetrics { text in reply(.success(MetricsExposition(text: text))) }
    }
}

/// The reply of `metrics`: the text exposition, lines ending in a newline, as Prometheus reads it.
public struct MetricsExposition: Codable, Sendable, Equatable {
    public var text: String
    public init(text: String) { self.text = text }
}
