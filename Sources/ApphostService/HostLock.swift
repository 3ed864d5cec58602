import Foundation

/// An exclusive flock on <data-dir>/host.lock, held while the host runs, so that two hosts never
/// share a data directory. The file holds the owner's pid for the other host's error message.
/// The kernel drops the lock when the process dies, so a crashed host leaves no stale lock.
final class HostLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func acquire(path: String, dataDirectory: String) throws(HostServiceError) -> HostLock {
        // CLOEXEC: processes a guest starts must not inherit, and so keep, the lock.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HostServiceError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let cause = errno
            let owner = cause == EWOULDBLOCK ? ownerPID(descriptor) : nil
            close(descriptor)
            guard cause == EWOULDBLOCK else {
                throw HostServiceError("cannot lock \(path): \(String(cString: strerror(cause)))")
            }
            let who = owner.map { "pid \($0)" } ?? "pid unknown"
            throw HostServiceError("another host (\(who)) is already running with data dir \(dataDirectory)")
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return HostLock(descriptor: descriptor)
    }

    /// The pid the holder wrote; nil while it has not written it yet.
    private static func ownerPID(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text)
    }

    /// Releases the lock. Call once, after the control socket is gone.
    func release() {
        close(descriptor)
    }
}
