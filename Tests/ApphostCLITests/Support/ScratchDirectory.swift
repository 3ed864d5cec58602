import Foundation

/// A fresh directory under /tmp for one test's --data-dir and files; short, so that the control
/// socket's path fits in a socket address. Other users may search it and read what it holds,
/// as they may an installed guest library: a root host's workers run under users of their own
/// (CONTRACT X2), and load the guests built here and reach their data directories below it.
final class ScratchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/apphost-cli-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: "/tmp/apphost-cli-XXXXXX"])
        }
        path = String(cString: created)
        chmod(path, 0o755)
    }

    /// A data directory inside this one, not created yet: the host creates it.
    var dataDirectory: String { path + "/data" }

    /// Writes `contents` to a file in this directory and returns its path.
    func file(_ name: String, contents: String) throws -> String {
        let file = path + "/" + name
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
