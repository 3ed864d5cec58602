import Foundation

/// What `apphost check` says of the guests it checked: a table for people, one JSON object, or
/// a JUnit XML file for CI.
public struct CheckReport: Sendable, Codable, Equatable {
    public var guests: [GuestCheck]
    public var passed: Int
    public var failed: Int
    public var skipped: Int
    /// The random walk's seed, when it ran: `--seed` with it walks the same way.
    public var seed: UInt64?

    public init(guests: [GuestCheck], seed: UInt64? = nil) {
        self.guests = guests
        self.seed = seed
        let verdicts = guests.flatMap(\.results).map(\.verdict)
        passed = verdicts.count { $0 == .pass }
        failed = verdicts.count { $0 == .fail }
        skipped = verdicts.count { $0 == .skip }
    }

    /// With `onlyFailed`, the guests' failed results alone (the totals stay the run's).
    public func keeping(onlyFailed: Bool) -> CheckReport {
        guard onlyFailed else { return self }
        var kept = self
        kept.guests = guests.map { guest in
            var guest = guest
            guest.results = guest.results.filter { $0.verdict == .fail }
            return guest
        }
        return kept
    }

    /// The table: per guest its tests, then the evidence of each failure; then the totals.
    public var lines: [String] {
        var lines: [String] = []
        for guest in guests {
            lines.append(guest.id.map { "\(guest.path) (\($0))" } ?? guest.path)
            guard !guest.results.isEmpty else { continue }
            let width = max(4, guest.results.map(\.test.count).max() ?? 0)
            let rulesWidth = max(5, guest.results.map { $0.rules.joined(separator: " ").count }.max() ?? 0)
            lines.append("  " + pad("TEST", width) + "  " + pad("RULES", rulesWidth) + "  VERDICT  TIME")
            for result in guest.results {
                // A skip's reason last, where its length pushes nothing out of line.
                lines.append(
                    "  " + pad(result.test, width) + "  " + pad(result.rules.joined(separator: " "), rulesWidth) + "  "
                        + pad(result.verdict.rawValue, 7) + "  " + String(format: "%.2f s", result.seconds)
                        + (result.reason.map { "  (\($0))" } ?? ""))
            }
            for result in guest.results where result.verdict == .fail {
                lines.append("  \(result.test) failed: expected \(result.expected ?? "?"); \(result.observed ?? "?")")
                for line in result.log ?? [] { lines.append("    log: \(line)") }
            }
        }
        lines.append(
            "\(passed) passed, \(failed) failed, \(skipped) skipped"
                + (seed.map { " (random walk: --seed \($0) repeats it)" } ?? ""))
        return lines
    }

    /// JUnit XML, as CI servers read it: a suite per guest, a case per test, its failure or skip.
    public var junit: String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = guests.flatMap(\.results)
        xml += "<testsuites name=\"apphost check\" tests=\"\(total.count)\" failures=\"\(failed)\" "
        xml += "skipped=\"\(skipped)\" time=\"\(Self.seconds(total.map(\.seconds).reduce(0, +)))\">\n"
        for guest in guests {
            let name = Self.escaped(guest.id ?? guest.path)
            let results = guest.results
            xml += "  <testsuite name=\"\(name)\" tests=\"\(results.count)\" "
            xml += "failures=\"\(results.count { $0.verdict == .fail })\" "
            xml += "skipped=\"\(results.count { $0.verdict == .skip })\" "
            xml += "time=\"\(Self.seconds(results.map(\.seconds).reduce(0, +)))\">\n"
            for result in results {
                xml += "    <testcase name=\"\(Self.escaped(result.test))\" classname=\"\(name)\" "
                xml += "time=\"\(Self.seconds(result.seconds))\">"
                switch result.verdict {
                case .pass:
                    break
                case .skip:
                    xml += "<skipped message=\"\(Self.escaped(result.reason ?? ""))\"/>"
                case .fail:
                    let message = "expected \(result.expected ?? "?"); \(result.observed ?? "?")"
                    let body = ([message, "rules: " + result.rules.joined(separator: " ")] + (result.log ?? []))
                        .joined(separator: "\n")
                    xml += "<failure message=\"\(Self.escaped(message))\">\(Self.escaped(body))</failure>"
                }
                xml += "</testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// Text as XML attribute values and content take it: markup escaped, and characters XML 1.0
    /// cannot hold (a guest's log may have any) as U+FFFD.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\t": escaped += "&#9;"
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value):
                escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
