import ApphostVocabulary
import Foundation

/// Where a host keeps its state: the lock that makes it the only host on this directory, the
/// control socket, and each guest's own directory.
public struct DataDirectory: Sendable, Equatable {
    /// The longest path a Unix socket address holds (sun_path is 108 bytes with the NUL).
    public static let maximumSocketPathLength = 107

    /// Absolute, so that the socket path means the same to every process.
    public let path: String

    public init(path: String) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        self.path = URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// The environment variable that names the data directory when `--data-dir` does not.
    public static let environmentVariable = "APPHOST_DATA_DIR"

    /// `--data-dir` if given, else $APPHOST_DATA_DIR, else $XDG_STATE_HOME/apphost, else
    /// ~/.local/state/apphost. An empty flag or variable is an error rather than the default: it is
    /// more likely a mistake (`APPHOST_DATA_DIR=$UNSET`) than a wish to reach another host.
    public static func resolve(
        _ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HostServiceError) -> DataDirectory {
        if let option {
            guard !option.isEmpty else { throw HostServiceError("--data-dir must not be empty") }
            return DataDirectory(path: option)
        }
        if let variable = environment[environmentVariable] {
            guard !variable.isEmpty else {
                throw HostServiceError("\(environmentVariable) must not be empty (unset it for the default)")
            }
            return DataDirectory(path: variable)
        }
        // The XDG spec ignores relative values.
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return DataDirectory(path: state + "/apphost")
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw HostServiceError("neither XDG_STATE_HOME nor HOME is set: pass --data-dir")
        }
        return DataDirectory(path: home + "/.local/state/apphost")
    }

    public var lockPath: String { path + "/host.lock" }
    public var socketPath: String { path + "/control.sock" }
    public var guestsPath: String { path + "/guests" }
    /// The SQLite database of scene sessions and their saved state.
    public var sessionsPath: String { path + "/sessions.sqlite" }

    /// The host's id (CONTRACT O4), one line.
    public var hostIDPath: String { path + "/host-id" }

    /// The id kept in ``hostIDPath``; made at random and kept there the first time. A file that
    /// holds no id is not overwritten: another program's, or damaged, it is the operator's to move.
    public func hostID() throws(HostServiceError) -> String {
        if let data = FileManager.default.contents(atPath: hostIDPath) {
            let line =
                String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .first ?? ""
            guard HostIdentity.isID(line) else {
                throw HostServiceError(
                    "\(hostIDPath) holds no host id (32 hexadecimal digits): move it away for a new one")
            }
            return String(line)
        }
        let id = HostIdentity.makeID()
        // Whole or not at all: written beside it, then renamed over.
        let partial = hostIDPath + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: Data((id + "\n").utf8)),
            chmod(partial, 0o644) == 0, rename(partial, hostIDPath) == 0
        else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw HostServiceError("cannot write \(hostIDPath): \(reason)")
        }
        return id
    }

    /// Throws when the control socket's path does not fit in a socket address.
    public func checkSocketPathLength() throws(HostServiceError) {
        let length = socketPath.utf8.count
        guard length <= Self.maximumSocketPathLength else {
            throw HostServiceError(
                "the control socket path \(socketPath) is \(length) bytes; Unix sockets allow at most "
                    + "\(Self.maximumSocketPathLength): choose a shorter --data-dir or \(Self.environmentVariable)")
        }
    }

    /// Creates the directory and its guests directory, private to this user (0700). An existing
    /// directory keeps its mode: the operator may have chosen it.
    public func create() throws(HostServiceError) {
        for directory in [path, guestsPath] {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw HostServiceError("cannot create \(directory): \(Self.reason(error))")
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(code)))
        }
        return (error as NSError).localizedDescription
    }
}
