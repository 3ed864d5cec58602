import ApphostVocabulary
import CApphost
import Foundation

/// Checks a file before dlopen so that each kind of wrong file gets its own cause (CONTRACT X1):
/// dlerror's text is vague ("invalid ELF header", "wrong ELF class") and dlopen of a FIFO would
/// block. Reads only the ELF header, the program headers and the dynamic symbol table, never
/// runs anything. The same symbol table reader tells `apphost inspect` what a library exports.
package enum ElfInspector {
    /// Throws the first problem found; returns when dlopen may try the file.
    package static func check(path: String) throws(LoadError) {
        if let cause = try withOpenFile(path, problem(in:)) { throw LoadError(path: path, cause: cause) }
    }

    /// What the library at `path` exports besides `apphost_entry`, as its dynamic symbol table
    /// says (`apphost inspect`); nil when the file does not tell (see `dynamicSymbols`) or cannot
    /// be read. Runs nothing and never loads the file.
    static func exports(path: String) -> GuestExports? {
        try? withOpenFile(path) { file throws(LoadError) -> GuestExports? in
            let bytes = try file.read(at: 0, count: ElfHeader.size64)
            guard bytes.count == ElfHeader.size64, ElfHeader.hasMagic(bytes), ElfHeader.fileClass(of: bytes) == .elf64,
                let symbols = try dynamicSymbols(in: file, header: ElfHeader(elf64: bytes)),
                let names = symbols.names(of: symbols.visibleToDlsym.filter { !$0.isVersionName })
            else { return nil }
            return GuestExports(names: names.lazy.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// Opens the regular file at `path` for `body`, which gets it open; a missing file, a
    /// directory and anything but a regular file (a FIFO would block) are refused unopened.
    private static func withOpenFile<Result>(
        _ path: String, _ body: (OpenFile) throws(LoadError) -> Result
    ) throws(LoadError) -> Result {
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
        return try body(OpenFile(path: path, descriptor: descriptor, size: UInt64(status.st_size)))
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
        return try entryProblem(in: file, header: header)
    }

    /// The most bytes of a symbol or string table read: far more than a guest, which exports one
    /// symbol and imports some thousands, has.
    private static let maximumTableSize: UInt64 = 64 << 20

    /// What is wrong with `apphost_entry` as the dynamic symbol table declares it, before
    /// anything reads the symbol as an `apphost_entry_t`: a function's code or a smaller object's
    /// neighbours would be read as the entry's members ("unsupported ABI version 3850979413...",
    /// "descriptor is NULL"). Nil when it is an object of the entry's size or more, when it is not
    /// there (dlsym then says so), and when the file does not tell: no readable table (see
    /// `dynamicSymbols`), or a symbol with no type or size (from assembly).
    private static func entryProblem(in file: OpenFile, header: ElfHeader) throws(LoadError) -> LoadError.Cause? {
        guard let symbols = try dynamicSymbols(in: file, header: header) else { return nil }
        let wanted = Array(APPHOST_ENTRY_SYMBOL.utf8)
        guard let entry = symbols.visibleToDlsym.first(where: { symbols.name(of: $0, is: wanted) }) else { return nil }
        return problem(with: entry)
    }

    /// The dynamic symbol table (`.dynsym`, which dlsym searches) and its string table, as the
    /// section headers locate them. Nil when the file does not tell: no section headers (the
    /// loader itself needs only the program headers), no such table, or one that is malformed,
    /// past the end of the file or larger than `maximumTableSize`.
    private static func dynamicSymbols(in file: OpenFile, header: ElfHeader) throws(LoadError) -> DynamicSymbols? {
        let count = Int(header.sectionHeaderCount)
        let stride = Int(header.sectionHeaderEntrySize)
        guard header.sectionHeaderOffset != 0, count > 0, stride >= ElfSectionHeader.size64 else { return nil }
        let headers = try file.read(at: header.sectionHeaderOffset, count: count * stride)
        guard headers.count == count * stride else { return nil }
        let fields = ElfFields(headers, littleEndian: header.isLittleEndian)
        let sections = (0..<count).map { ElfSectionHeader(fields, at: $0 * stride) }
        guard let symbols = sections.first(where: { $0.type == ElfSectionHeader.dynamicSymbols }),
            (UInt64(ElfSymbol.size64)...maximumTableSize).contains(symbols.entrySize), Int(symbols.link) < count
        else { return nil }
        let strings = sections[Int(symbols.link)]
        guard symbols.offset != 0, strings.offset != 0, symbols.size <= maximumTableSize,
            strings.size <= maximumTableSize, fits(symbols.offset, count: 1, size: symbols.size, in: file.size),
            fits(strings.offset, count: 1, size: strings.size, in: file.size)
        else { return nil }

        return DynamicSymbols(
            table: ElfFields(
                try file.read(at: symbols.offset, count: Int(symbols.size)), littleEndian: header.isLittleEndian),
            names: try file.read(at: strings.offset, count: Int(strings.size)), entrySize: Int(symbols.entrySize))
    }

    /// A dynamic symbol table read whole, with its string table.
    private struct DynamicSymbols {
        let table: ElfFields
        let names: [UInt8]
        /// `sh_entsize`, at least `ElfSymbol.size64`.
        let entrySize: Int

        /// The defined symbols dlsym finds (`ElfSymbol.isVisibleToDlsym`), in table order.
        var visibleToDlsym: some Sequence<ElfSymbol> {
            (0..<table.bytes.count / entrySize).lazy.map { ElfSymbol(table, at: $0 * entrySize) }.filter {
                $0.isDefined && $0.isVisibleToDlsym
            }
        }

        /// Whether `symbol` is named `wanted`, NUL-terminated: reads no more of the string table.
        func name(of symbol: ElfSymbol, is wanted: [UInt8]) -> Bool {
            let start = Int(symbol.nameOffset)
            guard start < names.count, names.count - start > wanted.count else { return false }
            return names[start + wanted.count] == 0 && names[start..<start + wanted.count].elementsEqual(wanted)
        }

        /// The non-empty names of `symbols`, without their NUL, once for each place in the string
        /// table they start at; a name that does not end within the table is left out. Names may
        /// share bytes (a linker stores "log" as the end of "dlog"), so a crafted table could make
        /// each of millions of symbols name megabytes: this reads the table once, and gives up
        /// (nil) when the names add up to more than `maximumTableSize` bytes.
        func names(of symbols: some Sequence<ElfSymbol>) -> [ArraySlice<UInt8>]? {
            let starts = Set(symbols.map { Int($0.nameOffset) }).filter { $0 < names.count }.sorted()
            var found: [ArraySlice<UInt8>] = []
            var total = 0
            var end = -1  // the first NUL at or after the previous start, or names.count
            for start in starts {
                if end < start { end = names[start...].firstIndex(of: 0) ?? names.count }
                guard end < names.count, end > start else { continue }
                total += end - start
                guard total <= maximumTableSize else { return nil }
                found.append(names[start..<end])
            }
            return found
        }
    }

    private static func problem(with entry: ElfSymbol) -> LoadError.Cause? {
        let guide = "see sdk/README.md"
        switch entry.type {
        case ElfSymbol.function, ElfSymbol.indirectFunction:
            return .badEntrySymbol("\(APPHOST_ENTRY_SYMBOL) is a function, not the entry object (\(guide))")
        case ElfSymbol.threadLocal:
            return .badEntrySymbol(
                "\(APPHOST_ENTRY_SYMBOL) is a thread-local variable, not the entry object (\(guide))")
        case ElfSymbol.object, ElfSymbol.common:
            let needed = UInt64(MemoryLayout<apphost_entry_t>.size)
            guard entry.size > 0, entry.size < needed else { return nil }
            let size = entry.size == 1 ? "1 byte" : "\(entry.size) bytes"
            return .badEntrySymbol(
                "\(APPHOST_ENTRY_SYMBOL) is \(size), smaller than apphost_entry_t (\(needed) bytes; \(guide))")
        default:
            return nil
        }
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
