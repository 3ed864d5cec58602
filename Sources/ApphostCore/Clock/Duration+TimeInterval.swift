/// Durations as the seconds that Dispatch deadlines and poll(2) timeouts take.
extension Duration {
    public var timeInterval: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
