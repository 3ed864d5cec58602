import Glibc

/// A /proc or cgroupfs file held open. Opening one makes the kernel look its path up, which costs
/// more than the read or write itself (about 12 us in cgroupfs, against 3 us for the read): a
/// file used at every freeze and thaw is opened once, when its worker is adopted.
///
/// Reads and writes go to offset 0 (pread, pwrite), so the handle can be used again and by any
/// thread; the kernel generates the file's text afresh for each read from offset 0.
final class KernelFileHandle: Sendable {
    let path: String
    private let descriptor: Int32

    enum Access {
        case read, write, readWrite
        var flags: Int32 {
            switch self {
            case .read: O_RDONLY
            case .write: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// Opens `path`; an error says "<failing> <path>: <strerror>".
    init(_ path: String, _ access: Access, failing: String = "cannot open") throws(FreezeError) {
        self.path = path
        descriptor = open(path, access.flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw KernelFile.failure(errno, failing, path) }
    }

    deinit { close(descriptor) }

    /// The file's whole text, as the kernel makes it now.
    func read() throws(FreezeError) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, $0.count, off_t(bytes.count))
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw KernelFile.failure(errno, "cannot read", path) }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `value` in a single write(2), as cgroup control files require.
    func write(_ value: String) throws(FreezeError) {
        let bytes = Array(value.utf8)
        var written = -1
        repeat {
            written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        } while written < 0 && errno == EINTR
        guard written == bytes.count else {
            throw KernelFile.failure(written < 0 ? errno : EIO, "cannot write \(value) to", path)
        }
    }
}
