extension Duration {
    /// "10 s", "0.25 s": seconds as operators read them in events and tables.
    public var secondsText: String {
        // Plain integer arithmetic: this runs on the host queue in every expiration and watchdog
        // message, and Foundation's regular expressions cost milliseconds on first use there.
        let milliseconds = (Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15).rounded()
        let total = Int64(milliseconds.magnitude)
        var text = (milliseconds < 0 ? "-" : "") + String(total / 1000)
        var fraction = String(total % 1000)
        if fraction != "0" {
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return "\(text) s"
    }
}
