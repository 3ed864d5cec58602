import ApphostVocabulary
import Foundation

/// `ctl ps` for people: the foreground, alert and layout, one row per guest with the parts of its
/// container, and under each guest the system calls its container refused and one indented line
/// per scene, with its size, place, loading progress and modal stack.
struct StatusTable {
    let status: HostStatus
    /// To say how long ago each guest's last transition was.
    let now: Date

    var lines: [String] {
        var lines =
            status.host.map { ["\($0.summary), started \(Self.age(now.timeIntervalSince($0.started))) ago"] } ?? []
        lines += [
            "foreground: \(status.foreground ?? "none")    alert: \(status.alert ? "shown" : "none")",
            "display: \(status.display)    layout: \(status.layoutLine)",
        ]
        if let dropped = status.droppedEventLines {
            lines.append("output: \(dropped) event lines dropped: standard output was not being read")
        }
        guard !status.guests.isEmpty else { return lines + ["no guests"] }
        let header = ["GUEST", "NAME", "PID", "STATE", "PHASE", "REASON", "SINCE", "SANDBOX", "RESTARTS"]
        let rows = status.guests.map { guest in
            [
                guest.id, guest.name, guest.pid.map(String.init) ?? "-", guest.appState.description,
                guest.phase.rawValue, guest.lastReason.rawValue,
                Self.age(now.timeIntervalSince(guest.since)) + " ago", guest.sandbox?.partsLine ?? "-",
                Self.restarts(guest.restart),
            ]
        }
        let columns = Columns(header: header, rows: rows)
        lines.append(columns.line(header))
        for (guest, cells) in zip(status.guests, rows) {
            lines.append(columns.line(cells))
            if let background = Self.background(guest, now: now) { lines.append("  " + background) }
            if let refused = guest.sandbox?.refused, !refused.isEmpty {
                lines.append("  sandbox refused " + refused.joined(separator: ", "))
            }
            for scene in guest.scenes { lines += Self.scene(scene).map { "  " + $0 } }
        }
        return lines
    }

    /// A scene's line: its handle, its session's first 8 characters (which every `ctl` command
    /// takes; `--json` has the whole id), its title in quotes when the guest gave it one, role,
    /// state, the saved state the host has for good and
    /// why its last save could not be stored (X5), size (S11), where the layout shows it and its
    /// loading progress (N2); then its modal stack (N3), if any, the top last.
    static func scene(_ scene: SceneStatus) -> [String] {
        let handle = scene.handle.map(String.init) ?? "-"
        let saved = scene.savedBytes.map { $0 == 1 ? "1 byte" : "\($0) bytes" } ?? "nothing"
        var parts = [
            "scene \(handle)", "session \(scene.session.prefix(8))",
        ]
        if let title = scene.title { parts.append("\"\(title)\"") }
        parts += ["\(scene.role)", "\(scene.state)", "saved \(saved)"]
        if let failure = scene.saveFailure { parts.append("save failed: \(failure)") }
        if let size = scene.size { parts.append("\(size)") }
        if let placement = scene.placement { parts.append(placement) }
        if scene.loading != .none { parts.append("loading \(scene.loading)") }
        var lines = [parts.joined(separator: "  ")]
        if !scene.modals.isEmpty {
            let modals = scene.modals.map { "\"\($0.title)\" (\($0.style))" }
            lines.append("  modals, top last: " + modals.joined(separator: ", "))
        }
        return lines
    }

    /// The background budget and open tasks (B2), or since when and why the guest is suspended;
    /// nil for a foreground guest with no open task.
    static func background(_ guest: GuestStatus, now: Date) -> String? {
        var parts: [String] = []
        if let suspension = guest.suspension {
            parts.append(
                "suspended \(age(now.timeIntervalSince(suspension.since))) ago (\(suspension.reason.rawValue))")
        } else if let remaining = guest.backgroundTimeRemaining {
            parts.append(String(format: "background time left %.1fs", remaining))
        }
        if !guest.tasks.isEmpty {
            let names = guest.tasks.map { "\"\($0.name)\"" + ($0.expired ? " (expiring)" : "") }
            parts.append("tasks " + names.joined(separator: ", "))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }

    /// "-" without a restart policy, else the count, and whether the host gave up.
    static func restarts(_ restart: RestartStatus) -> String {
        guard restart.policy != .never else { return "-" }
        return restart.gaveUp ? "\(restart.restarts), gave up" : "\(restart.restarts)"
    }

    /// "4s", "2m05s", "1h02m": short enough for a column.
    static func age(_ interval: TimeInterval) -> String {
        let seconds = max(0, Int(interval))
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return String(format: "%dm%02ds", seconds / 60, seconds % 60) }
        return String(format: "%dh%02dm", seconds / 3600, seconds % 3600 / 60)
    }
}
