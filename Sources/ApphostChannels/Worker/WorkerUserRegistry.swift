import ApphostFreezing
import Foundation
import Glibc

/// The machine's registry of worker users: a directory, root's and private, with a file per
/// allocated uid (its name the uid, its content the `WorkerUserRecord` as JSON), which every host
/// on the machine consults, whatever its data directory. A uid is allocated by creating its file
/// with link(2), which fails when the file exists: two hosts that pick the same uid at once get
/// it once, with no lock. A host changes and removes only the records of its own data directory
/// (it holds that directory's lock) and, when it starts, those whose holder is gone; a file it
/// cannot read still holds its uid. Its place is `APPHOST_UID_REGISTRY`, by default
/// `/var/lib/apphost-uids`: tests point it elsewhere, so as not to touch the machine's.
struct WorkerUserRegistry: Sendable {
    static let environmentVariable = "APPHOST_UID_REGISTRY"
    static let defaultDirectory = "/var/lib/apphost-uids"

    let directory: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The directory `APPHOST_UID_REGISTRY` names, else the default.
    static func configuredDirectory() -> String {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty else {
            return defaultDirectory
        }
        return value
    }

    /// Makes the directory (root's, 0700) if it is not there, and checks that it is a directory
    /// of this user's that no other user may write (then makes it 0700, as systemd's
    /// `StateDirectory=` makes it 0755); the reason when it cannot be used.
    func open() throws(Failure) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw Failure(description: "cannot make the uid registry \(directory): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(description: "the uid registry \(directory) is not a directory")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            throw Failure(
                description: "the uid registry \(directory) must be the host's user's and written by no other user")
        }
        // Private: what it records (guests' ids, libraries' paths) is no other user's business.
        if info.st_mode & 0o077 != 0 { chmod(directory, 0o700) }
    }

    /// Every record there is; a file that does not parse is left out (its uid stays taken).
    func records() -> [WorkerUserRecord] {
        KernelFile.entries(directory).compactMap { name -> WorkerUserRecord? in
            guard let uid = UInt32(name),
                let data = FileManager.default.contents(atPath: "\(directory)/\(name)"),
                let record = try? JSONDecoder().decode(WorkerUserRecord.self, from: data), record.uid == uid
            else { return nil }
            return record
        }
    }

    /// Creates the record of `record.uid`; false when that uid is taken.
    func create(_ record: WorkerUserRecord) throws(Failure) -> Bool {
        let temporary = try writeTemporary(record)
        defer { unlink(temporary) }
        if link(temporary, path(of: record.uid)) == 0 { return true }
        if errno == EEXIST { return false }
        throw Failure(
            description: "cannot record uid \(record.uid) in \(directory): \(String(cString: strerror(errno)))")
    }

    /// Writes an existing record again, whole or not at all.
    func update(_ record: WorkerUserRecord) throws(Failure) {
        let temporary = try writeTemporary(record)
        guard rename(temporary, path(of: record.uid)) == 0 else {
            let error = errno
            unlink(temporary)
            throw Failure(
                description: "cannot record uid \(record.uid) in \(directory): \(String(cString: strerror(error)))")
        }
    }

    /// Frees the uid.
    func remove(_ uid: UInt32) {
        unlink(path(of: uid))
    }

    private func path(of uid: UInt32) -> String { "\(directory)/\(uid)" }

    /// The record in a new file of its own beside the records, whose path is returned.
    private func writeTemporary(_ record: WorkerUserRecord) throws(Failure) -> String {
        let data: Data
        do {
            data = try JSONEncoder().encode(record)
        } catch {
            throw Failure(description: "cannot encode the record of uid \(record.uid): \(error)")
        }
        var template = Array("\(directory)/.new-\(record.uid)-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw Failure(
                description: "cannot write in the uid registry \(directory): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Not synced: a launch must not wait for the disk (thousands of guests launch at once,
        // each a first time). A record lost to a power cut leaves its guest's files to the host
        // when the host starts again (`WorkerUsers.prepare`), as for a guest with no record.
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count else {
            unlink(path)
            throw Failure(description: "cannot write in the uid registry \(directory)")
        }
        return path
    }
}

/// The users some process of this machine runs as, from /proc (real, effective, saved and file
/// system uids alike); a zombie, which runs nothing and waits for its parent to reap it, is none.
enum ProcessUsers {
    static func all() -> Set<UInt32> {
        var users: Set<UInt32> = []
        for name in KernelFile.entries("/proc") where name.first?.isNumber == true {
            guard let status = try? KernelFile.read("/proc/\(name)/status"),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
                !status.contains("\nState:\tZ")
            else { continue }
            for field in line.dropFirst(4).split(whereSeparator: \.isWhitespace) {
                if let uid = UInt32(field) { users.insert(uid) }
            }
        }
        return users
    }
}
