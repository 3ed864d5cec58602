import Glibc

/// Reads and writes the small files of /proc and cgroupfs with plain system calls, opening them for
/// one use (`KernelFileHandle` keeps a file open for many): a cgroup control file takes its value
/// in one write(2), and its errno is the only explanation the kernel gives, so it goes into the
/// error as it is.
package enum KernelFile {
    /// The file's whole text.
    package static func read(_ path: String) throws(FreezeError) -> String {
        try KernelFileHandle(path, .read, failing: "cannot read").read()
    }

    /// Writes `value` in a single write(2), as cgroup control files require.
    package static func write(_ value: String, to path: String) throws(FreezeError) {
        try KernelFileHandle(path, .write, failing: "cannot write \(value) to").write(value)
    }

    /// Creates a directory; one that exists already is fine.
    static func makeDirectory(_ path: String) throws(FreezeError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw failure(errno, "cannot create", path) }
    }

    /// Removes a directory: true once it is gone (or was never there), false with errno set.
    static func removeDirectory(_ path: String) -> Bool {
        rmdir(path) == 0 || errno == ENOENT
    }

    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The names in a directory, without "." and ".."; empty when it cannot be read.
    package static func entries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// "<what> <path>: <strerror(code)>"; callers pass errno first, before building the text
    /// can change it.
    static func failure(_ code: Int32, _ what: String, _ path: String) -> FreezeError {
        FreezeError("\(what) \(path): \(String(cString: strerror(code)))")
    }
}
