import Foundation
import XCTest

@testable import ApphostLoading

/// What a guest exports besides `apphost_entry`, read from its dynamic symbol table
/// (`apphost inspect`'s "exports" line; sdk/README.md, "One exported symbol").
final class GuestExportsTests: XCTestCase {
    /// Names a C guest exports when it is linked without sdk/apphost.map, and some it does not.
    static let extraSource = """
        double log(double x) { return x; }
        int state = 1;
        void init(void) { state = 2; }
        __attribute__((weak)) int weak_helper(void) { return 0; }
        __attribute__((visibility("protected"))) int protected_helper(void) { return 1; }
        __attribute__((visibility("hidden"))) int hidden_helper(void) { return 2; }
        static int local_helper(void) { return 3; }
        int (*use_local)(void) = local_helper;
        int swift_function(void) __asm__("$s4Demo8functionyyF");
        int swift_function(void) { return 4; }
        int swift_variable(void) __asm__("_$s4Demo8variableSivp");
        int swift_variable(void) { return 5; }
        int cxx_function(int) __asm__("_Z3fooi");
        int cxx_function(int x) { return x; }
        """
    static let extraNames = ["_Z3fooi", "init", "log", "protected_helper", "state", "use_local", "weak_helper"]

    static var versionScript: String { GuestFixtures.packageRoot.appendingPathComponent("sdk/apphost.map").path }

    /// The minimal fixture with `extraSource`, built with `flags`.
    private func guest(_ name: String, flags: [String] = []) throws -> String {
        let extra = GuestFixtures.path("exports_extra.c")
        if !FileManager.default.fileExists(atPath: extra) {
            _ = try GuestFixtures.file("exports_extra.c", bytes: Array(Self.extraSource.utf8))
        }
        return try GuestFixtures.library("minimal_guest.c", name: name, flags: flags + [extra])
    }

    // A C guest linked with sdk/apphost.map exports the entry alone, whatever it defines.
    func testVersionScriptLeavesOnlyTheEntry() throws {
        let path = try guest("exports_version_script", flags: ["-Wl,--version-script=" + Self.versionScript])
        let exports = try XCTUnwrap(ElfInspector.exports(path: path))
        XCTAssertEqual(exports, GuestExports(swiftSymbols: 0, otherSymbols: []))
        XCTAssertTrue(exports.isEntryOnly)
    }

    // Without it: what dlsym finds (global or weak, default or protected), Swift names counted
    // and the others listed, sorted; hidden and static functions are not exports.
    func testPlainNamesAreListedAndSwiftNamesCounted() throws {
        let exports = try XCTUnwrap(ElfInspector.exports(path: try guest("exports_plain")))
        XCTAssertEqual(exports, GuestExports(swiftSymbols: 2, otherSymbols: Self.extraNames))
        XCTAssertFalse(exports.isEntryOnly)
    }

    // gold adds __bss_start, _edata and _end to a library's exports, and GNU ld and gold list the
    // version a version script names (GUEST_1) as an absolute symbol: none is the guest's.
    func testWhatLinkersAddIsLeftOut() throws {
        let named = try GuestFixtures.file(
            "exports_named.map", bytes: Array("GUEST_1 { global: apphost_entry; local: *; };\n".utf8))
        for linker in ["bfd", "gold"] {
            let plain: String
            do {
                plain = try guest("exports_plain_\(linker)", flags: ["-fuse-ld=\(linker)"])
            } catch {
                XCTAssertEqual(linker, "gold", "\(error)")  // gold is optional (binutils-gold)
                continue
            }
            XCTAssertEqual(
                ElfInspector.exports(path: plain), GuestExports(swiftSymbols: 2, otherSymbols: Self.extraNames), linker)
            let versioned = try guest(
                "exports_named_\(linker)", flags: ["-fuse-ld=\(linker)", "-Wl,--version-script=" + named])
            XCTAssertEqual(
                ElfInspector.exports(path: versioned), GuestExports(swiftSymbols: 0, otherSymbols: []), linker)
        }
    }

    // A file whose section headers or tables are missing, out of bounds or nonsense gives nil
    // ("unknown"), or what it holds, and never crashes the reader or the entry check with it.
    func testMalformedTablesAreUnknownNotACrash() throws {
        let valid = try guest("exports_plain")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: valid)))
        let header = ElfHeader(elf64: bytes)
        let dynsym = try XCTUnwrap(sectionHeader(of: ElfSectionHeader.dynamicSymbols, in: bytes))
        let symbols = ElfSectionHeader(ElfFields(bytes, littleEndian: true), at: dynsym)
        let strings = ElfSectionHeader(
            ElfFields(bytes, littleEndian: true),
            at: Int(header.sectionHeaderOffset) + Int(symbols.link) * Int(header.sectionHeaderEntrySize))

        let unknown: [(String, (inout [UInt8]) -> Void)] = [
            (
                "no section headers",
                {
                    put(0, in: &$0, at: 40, width: 8)
                    put(0, in: &$0, at: 60, width: 2)
                }
            ),
            ("section headers past the end", { put(UInt64($0.count), in: &$0, at: 40, width: 8) }),
            ("symbol table past the end", { put(UInt64($0.count), in: &$0, at: dynsym + 24, width: 8) }),
            ("huge symbol table", { put(1 << 40, in: &$0, at: dynsym + 32, width: 8) }),
            ("string table out of range", { put(0xFFFF, in: &$0, at: dynsym + 40, width: 4) }),
            ("zero entry size", { put(0, in: &$0, at: dynsym + 56, width: 8) }),
            ("short entry size", { put(23, in: &$0, at: dynsym + 56, width: 8) }),
            ("huge entry size", { put(1 << 40, in: &$0, at: dynsym + 56, width: 8) }),
            ("cut in the symbol table", { $0 = Array($0.prefix(Int(symbols.offset) + 10)) }),
            ("not ELF", { $0[0] = 0 }),
            ("32-bit", { $0[4] = 1 }),
        ]
        for (kind, edit) in unknown {
            let path = try GuestFixtures.copy(of: valid, as: "exports-\(kind).so", edit: edit)
            XCTAssertNil(ElfInspector.exports(path: path), kind)
            _ = try? ElfInspector.check(path: path)
        }

        // Names that never end within their table are no names.
        let unterminated = try GuestFixtures.copy(of: valid, as: "exports-unterminated.so") {
            for index in Int(strings.offset)..<Int(strings.offset + strings.size) { $0[index] = UInt8(ascii: "a") }
        }
        XCTAssertEqual(ElfInspector.exports(path: unterminated), GuestExports(swiftSymbols: 0, otherSymbols: []))

        // Random bytes in the section headers and both tables, many times over.
        var random = SplitMix64(seed: 13)
        let regions = [
            Int(header.sectionHeaderOffset)..<bytes.count, Int(symbols.offset)..<Int(symbols.offset + symbols.size),
            Int(strings.offset)..<Int(strings.offset + strings.size),
        ]
        let path = GuestFixtures.path("exports-random.so")
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<32 {
                let region = regions[Int(random.next() % UInt64(regions.count))]
                damaged[region.lowerBound + Int(random.next() % UInt64(region.count))] = UInt8(
                    truncatingIfNeeded: random.next())
            }
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            _ = ElfInspector.exports(path: path)
            _ = try? ElfInspector.check(path: path)
        }
    }

    // Names may share bytes, so a small string table can name gigabytes: 2,000 symbols, each
    // naming the rest of a 64 KB table, add up to 128 MB; the reader gives up, and soon.
    func testOverlappingNamesAreBounded() throws {
        let count = 2_000
        var names = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        names[names.count - 1] = 0
        let path = try GuestFixtures.file(
            "exports-overlapping.so", bytes: syntheticLibrary(names: names, offsets: (0..<count).map { $0 * 16 }))
        let started = Date()
        XCTAssertNil(ElfInspector.exports(path: path))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)

        // The same file read right: each name once, however many symbols point at it.
        let plain = try GuestFixtures.file(
            "exports-synthetic.so",
            bytes: syntheticLibrary(
                names: Array("\0apphost_entry\0init\0$s1A1fyyF\0".utf8), offsets: [1, 15, 15, 20, 0]))
        XCTAssertEqual(ElfInspector.exports(path: plain), GuestExports(swiftSymbols: 1, otherSymbols: ["init"]))
    }

    // MARK: Helpers

    /// The file offset of the first section header of `type`.
    private func sectionHeader(of type: UInt32, in bytes: [UInt8]) -> Int? {
        let header = ElfHeader(elf64: bytes)
        let fields = ElfFields(bytes, littleEndian: header.isLittleEndian)
        return (0..<Int(header.sectionHeaderCount)).lazy.map {
            Int(header.sectionHeaderOffset) + $0 * Int(header.sectionHeaderEntrySize)
        }.first { ElfSectionHeader(fields, at: $0).type == type }
    }

    /// A little-endian 64-bit ELF shared object that holds nothing but a section header table
    /// with a dynamic symbol table, one global function named at each of `offsets`, and `names`.
    private func syntheticLibrary(names: [UInt8], offsets: [Int]) -> [UInt8] {
        let symbolsOffset = 64 + 3 * 64
        let stringsOffset = symbolsOffset + offsets.count * 24
        var bytes = [UInt8](repeating: 0, count: stringsOffset + names.count)
        bytes.replaceSubrange(0..<4, with: ElfHeader.magic)
        bytes[4] = 2  // ELFCLASS64
        bytes[5] = 1  // ELFDATA2LSB
        bytes[6] = 1  // EV_CURRENT
        put(3, in: &bytes, at: 16, width: 2)  // ET_DYN
        put(UInt64(ElfMachine.host), in: &bytes, at: 18, width: 2)
        put(64, in: &bytes, at: 40, width: 8)  // e_shoff
        put(64, in: &bytes, at: 58, width: 2)  // e_shentsize
        put(3, in: &bytes, at: 60, width: 2)  // e_shnum
        // Section 1, the symbols; section 2, their names.
        put(UInt64(ElfSectionHeader.dynamicSymbols), in: &bytes, at: 128 + 4, width: 4)
        put(UInt64(symbolsOffset), in: &bytes, at: 128 + 24, width: 8)
        put(UInt64(offsets.count * 24), in: &bytes, at: 128 + 32, width: 8)
        put(2, in: &bytes, at: 128 + 40, width: 4)
        put(24, in: &bytes, at: 128 + 56, width: 8)
        put(3, in: &bytes, at: 192 + 4, width: 4)  // SHT_STRTAB
        put(UInt64(stringsOffset), in: &bytes, at: 192 + 24, width: 8)
        put(UInt64(names.count), in: &bytes, at: 192 + 32, width: 8)
        for (index, offset) in offsets.enumerated() {
            let symbol = symbolsOffset + index * 24
            put(UInt64(offset), in: &bytes, at: symbol, width: 4)
            bytes[symbol + 4] = 1 << 4 | ElfSymbol.function  // STB_GLOBAL
            put(1, in: &bytes, at: symbol + 6, width: 2)  // defined, in section 1
        }
        bytes.replaceSubrange(stringsOffset..<bytes.count, with: names)
        return bytes
    }
}

/// Writes `value` little-endian into `bytes`.
private func put(_ value: UInt64, in bytes: inout [UInt8], at offset: Int, width: Int) {
    for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
}

/// A small, seeded random number generator, so that a failure can be replayed.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
