import ApphostVocabulary

/// `{"command":"metrics"}`: the host's metrics in Prometheus' text format (CONTRACT O2), the
/// exposition an HTTP scrape of /metrics would get.
public struct MetricsCommand: QueryCommand, Equatable {
    public static let name = "metrics"
    public typealias Response = MetricsExposition

    public init() {}

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        host.controlMetrics { text in reply(.success(MetricsExposition(text: text))) }
    }
}

/// The reply of `metrics`: the text exposition, lines ending in a newline, as Prometheus reads it.
public struct MetricsExposition: Codable, Sendable, Equatable {
    public var text: String
    public init(text: String) { self.text = text }
}
