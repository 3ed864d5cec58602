/// Durations as seconds, for Dates, Dispatch deadlines and poll(2) timeouts: the one conversion.
extension Duration {
    public var timeInterval: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
