import Foundation

/// The host's counters by guest (CONTRACT O2), each at 0 from the guest's launch: an alert on
/// `increase(apphost_guest_overruns_total[5m]) > 0` must see the first overrun, which it cannot
/// when the series appears with it (Prometheus has no earlier sample to compare with).
///
/// Kept here rather than in the Prometheus registry, which copies a family's series to add one:
/// a dozen series for each guest at its launch would make each launch cost in proportion to the
/// guests before it (Benchmarks/README.md, Density). Here a guest's series are one dictionary
/// entry, and the text is written when scraped, guests in order.
struct GuestCounters: Sendable {
    /// One family: its name, help text and, for those with one, the reasons it is made with
    /// (every guest has a series for each at 0; others appear when counted).
    struct Family: Sendable {
        let name: String
        let help: String
        let reasons: [String]
        /// Whole numbers, written without a fraction ("3"); else as Swift writes a Double.
        let whole: Bool

        init(_ name: String, _ help: String, reasons: [String] = [], whole: Bool = true) {
            self.name = name
            self.help = help
            self.reasons = reasons
            self.whole = whole
        }
    }

    /// A guest's series in one family: the family's index and the reason, "" for none.
    private struct Series: Hashable, Sendable {
        let family: Int
        let reason: String
    }

    let families: [Family]
    private var counts: [String: [Series: Double]] = [:]

    init(families: [Family]) {
        self.families = families
    }

    /// Makes `guest`'s series at 0, unless it has them (a relaunch keeps what it counted).
    mutating func add(_ guest: String) {
        guard counts[guest] == nil else { return }
        var series: [Series: Double] = [:]
        for (index, family) in families.enumerated() {
            if family.reasons.isEmpty {
                series[Series(family: index, reason: "")] = 0
            } else {
                for reason in family.reasons { series[Series(family: index, reason: reason)] = 0 }
            }
        }
        counts[guest] = series
    }

    /// Adds `amount` (never negative) to `guest`'s series of family `family` (an index in
    /// `families`), making the guest's series first if it has none; only this one with `alone`
    /// (a launch that failed before the guest said who it is: no guest to make series for).
    mutating func count(_ family: Int, _ guest: String, reason: String = "", by amount: Double, alone: Bool = false) {
        if !alone { add(guest) }
        counts[guest, default: [:]][Series(family: family, reason: reason), default: 0] += max(0, amount)
    }

    /// The value of one series; nil when it does not exist.
    func value(_ family: Int, _ guest: String, reason: String = "") -> Double? {
        counts[guest]?[Series(family: family, reason: reason)]
    }

    /// Prometheus' text format: each family's HELP and TYPE, then its series, guests in order and
    /// reasons in order within a guest.
    func exposition() -> String {
        var lines = Array(repeating: "", count: families.count)
        for guest in counts.keys.sorted() {
            guard let series = counts[guest] else { continue }
            let label = "guest=\"\(Self.escapedLabel(guest))\""
            for (key, value) in series.sorted(by: { ($0.key.family, $0.key.reason) < ($1.key.family, $1.key.reason) }) {
                let family = families[key.family]
                let labels = key.reason.isEmpty ? label : label + ",reason=\"\(Self.escapedLabel(key.reason))\""
                lines[key.family] += "\(family.name){\(labels)} \(Self.number(value, whole: family.whole))\n"
            }
        }
        var text = ""
        for (index, family) in families.enumerated() {
            text += "# HELP \(family.name) \(Self.escapedHelp(family.help))\n# TYPE \(family.name) counter\n"
            text += lines[index]
        }
        return text
    }

    static func number(_ value: Double, whole: Bool) -> String {
        if whole, value < 9.0e15 { return String(Int64(value)) }
        return value.description
    }

    /// A label value as the text format has it: backslash, double quote and newline escaped.
    static func escapedLabel(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Help text as the text format has it: backslash and newline escaped.
    static func escapedHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
