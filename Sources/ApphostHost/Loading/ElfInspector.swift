import Foundation

/// Checks a file before dlopen so that each kind of wrong file gets its own cause (CONTRACT X1):
/// dlerror's text is vague ("invalid ELF header", "wrong ELF class") and dlopen of a FIFO would
/// block. Reads only the ELF header and program headers, never runs anything.
enum ElfInspector {
    /// Throws the first problem found; returns when dlopen may try the file.
    static func check(path: String) throws(LoadError) {
        func fail(_ cause: LoadError.Cause) -> LoadError { LoadError(path: path, cause: cause) }

        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            throw fail(code == ENOENT || code == ENOTDIR ? .missingFile : .unreadable(describe(errno: code)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw fail(.isDirectory)
        default: throw fail(.unreadable("not a regular file"))
        }

        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fail(.unreadable(describe(errno: errno))) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw fail(.unreadable(describe(errno: errno))) }
        let file = OpenFile(path: path, descriptor: descriptor, size: UInt64(status.st_size))

        if let cause = try problem(in: file) { throw fail(cause) }
    }

    private static func problem(in file: OpenFile) throws(LoadError) -> LoadError.Cause? {
        let ident = try file.read(at: 0, count: ElfHeader.identSize)
        guard ElfHeader.hasMagic(ident) else { return .notELF }
        guard ident.count >= 6 else { return .truncated }
        switch ElfHeader.fileClass(of: ident) {
        case .elf64: break
        case .elf32: return .wrongELFClass("32-bit")
        case .unknown(let value): return .wrongELFClass("an unknown ELF class \(value)")
        }

        let headerBytes = try file.read(at: 0, count: ElfHeader.size64)
        guard headerBytes.count == ElfHeader.size64 else { return .truncated }
        let header = ElfHeader(elf64: headerBytes)

        guard header.machine == ElfMachine.host, header.isLittleEndian == ElfMachine.hostIsLittleEndian else {
            return .wrongArchitecture(
                found: ElfMachine.describe(header.machine, littleEndian: header.isLittleEndian),
                expected: ElfMachine.name(ElfMachine.host))
        }
        switch header.type {
        case .sharedObject: break
        case .executable: return .notSharedObject("an executable")
        case .relocatable: return .notSharedObject("a relocatable object file")
        case .core: return .notSharedObject("a core dump")
        case .other(let value): return .notSharedObject("an ELF file of type \(value)")
        }

        guard
            fits(
                header.sectionHeaderOffset, count: max(UInt64(header.sectionHeaderCount), 1),
                size: UInt64(header.sectionHeaderEntrySize), in: file.size)
        else { return .truncated }
        guard header.programHeaderCount > 0 else { return nil }
        guard header.programHeaderEntrySize >= ElfHeader.programHeaderSize64,
            fits(
                header.programHeaderOffset, count: UInt64(header.programHeaderCount),
                size: UInt64(header.programHeaderEntrySize), in: file.size)
        else { return .truncated }

        let table = try file.read(
            at: header.programHeaderOffset, count: Int(header.programHeaderCount) * Int(header.programHeaderEntrySize))
        let fields = ElfFields(table, littleEndian: header.isLittleEndian)
        for index in 0..<Int(header.programHeaderCount) {
            let segment = ElfProgramHeader(fields, at: index * Int(header.programHeaderEntrySize))
            // A PIE executable is ET_DYN too; its interpreter request tells it from a library.
            if segment.type == ElfProgramHeader.interpreter { return .notSharedObject("an executable") }
            if segment.type == ElfProgramHeader.load,
                !fits(segment.offset, count: 1, size: segment.fileSize, in: file.size)
            {
                return .truncated
            }
        }
        return nil
    }

    /// Whether `count` entries of `size` bytes from `offset` end within the file. A zero offset
    /// means the table is absent.
    private static func fits(_ offset: UInt64, count: UInt64, size: UInt64, in fileSize: UInt64) -> Bool {
        guard offset != 0, count != 0, size != 0 else { return true }
        let (length, lengthOverflow) = count.multipliedReportingOverflow(by: size)
        let (end, endOverflow) = offset.addingReportingOverflow(length)
        return !lengthOverflow && !endOverflow && end <= fileSize
    }

    private static func describe(errno code: Int32) -> String { String(cString: strerror(code)) }

    private struct OpenFile {
        let path: String
        let descriptor: Int32
        let size: UInt64

        /// Up to `count` bytes from `offset`: fewer at the end of the file.
        func read(at offset: UInt64, count: Int) throws(LoadError) -> [UInt8] {
            guard offset < size else { return [] }
            let wanted = Int(min(UInt64(count), size - offset))
            var bytes = [UInt8](repeating: 0, count: wanted)
            var filled = 0
            while filled < wanted {
                let got = bytes.withUnsafeMutableBytes { buffer in
                    pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
                }
                if got < 0, errno == EINTR { continue }
                guard got >= 0 else {
                    throw LoadError(path: path, cause: .unreadable(ElfInspector.describe(errno: errno)))
                }
                if got == 0 { break }
                filled += got
            }
            return Array(bytes.prefix(filled))
        }
    }
}
