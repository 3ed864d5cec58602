import ApphostModel
import Foundation

/// `--grant id:PATH:ro`: the operator lets the guest `id` read `PATH` (a file, or a directory and
/// all beneath it) from its container (CONTRACT A6, X6). Read-only is the one mode: a guest
/// writes only its data directory.
struct FileGrant: Equatable {
    var guest: String
    var path: String

    init(guest: String, path: String) {
        self.guest = guest
        self.path = path
    }

    /// The grant `argument` says, or why it is none, in one line.
    static func parse(_ argument: String) throws(CLIFailure) -> FileGrant {
        guard let idEnd = argument.firstIndex(of: ":"), let modeStart = argument.lastIndex(of: ":"),
            idEnd < modeStart
        else {
            throw CLIFailure("--grant \(argument): expected <guest id>:<absolute path>:ro")
        }
        let guest = String(argument[..<idEnd])
        let path = String(argument[argument.index(after: idEnd)..<modeStart])
        let mode = argument[argument.index(after: modeStart)...]
        guard GuestDescriptor.isValidID(guest) else {
            throw CLIFailure("--grant \(argument): \(guest) is not a guest id (reverse-DNS, such as org.example.notes)")
        }
        guard mode == "ro" else {
            throw CLIFailure("--grant \(argument): the mode is ro (a guest writes only its data directory)")
        }
        guard path.hasPrefix("/"), !path.contains("\n") else {
            throw CLIFailure("--grant \(argument): the path must be absolute, on one line")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIFailure("--grant \(argument): \(path) does not exist")
        }
        return FileGrant(guest: guest, path: path)
    }

    /// Each guest's granted paths, in the order given.
    static func byGuest(_ grants: [FileGrant]) -> [String: [String]] {
        grants.reduce(into: [:]) { byGuest, grant in byGuest[grant.guest, default: []].append(grant.path) }
    }
}
