import Foundation

/// A guest's own data directory, `<guests directory>/<guest id>`, private to the host's user.
enum GuestDataDirectory {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates the directory (and the guests directory) if needed; returns its absolute path.
    static func create(in guestsDirectory: String, id: String) throws(Failure) -> String {
        let base = URL(
            fileURLWithPath: guestsDirectory, isDirectory: true,
            relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
        let path = base.appendingPathComponent(id, isDirectory: true).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(description: "cannot create the data directory \(path): \(error.localizedDescription)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(description: "the data directory \(path) is not a directory")
        }
        return path
    }
}
