import Foundation

/// Durations in nanoseconds, with the order statistics the report prints.
struct Samples {
    private(set) var sorted: [Double]

    init(_ values: [Double]) { sorted = values.sorted() }

    var median: Double { percentile(50) }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

enum Report {
    static func print(_ name: String, _ samples: Samples, target: String? = nil) {
        let line = String(
            format: "%-44@ p50 %9@  p99 %9@  min %9@  (n=%d)", name as NSString,
            format(samples.median) as NSString, format(samples.percentile(99)) as NSString,
            format(samples.percentile(0)) as NSString, samples.sorted.count)
        Swift.print(line + (target.map { "  target: \($0)" } ?? ""))
    }

    static func ratio(_ name: String, _ value: Double, target: String) {
        Swift.print(String(format: "%-44@ %.2fx  target: %@", name as NSString, value, target as NSString))
    }

    static func format(_ nanoseconds: Double) -> String {
        if nanoseconds >= 1_000_000 { return String(format: "%.2f ms", nanoseconds / 1_000_000) }
        if nanoseconds >= 1_000 { return String(format: "%.1f us", nanoseconds / 1_000) }
        return String(format: "%.0f ns", nanoseconds)
    }
}

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds)
}
