/// Aligns the cells of a `ctl` table: each column as wide as its widest cell, two spaces apart,
/// no trailing spaces, as `ps` tables print.
struct Columns {
    private let widths: [Int]

    init(header: [String], rows: [[String]]) {
        widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    }

    func line(_ cells: [String]) -> String {
        let padded = zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        return String(padded.joined(separator: "  ").reversed().drop { $0 == " " }.reversed())
    }
}
