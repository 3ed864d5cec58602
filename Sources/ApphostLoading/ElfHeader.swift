/// The parts of an ELF file that the loader checks before dlopen, decoded in the file's own byte
/// order. Layouts are those of the System V gABI ("ELF Header", "Program Header").
struct ElfHeader {
    /// `e_ident`: magic, class, data encoding, version, ABI, padding.
    static let identSize = 16
    /// `sizeof(Elf64_Ehdr)`.
    static let size64 = 64
    /// `sizeof(Elf64_Phdr)`.
    static let programHeaderSize64 = 56
    static let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]  // "\x7fELF"

    enum FileClass: Equatable {
        case elf32
        case elf64
        case unknown(UInt8)
    }

    enum FileType: Equatable {
        case relocatable
        case executable
        case sharedObject
        case core
        case other(UInt16)
    }

    let fileClass: FileClass
    let isLittleEndian: Bool
    let type: FileType
    let machine: UInt16
    let programHeaderOffset: UInt64
    let programHeaderEntrySize: UInt16
    let programHeaderCount: UInt16
    let sectionHeaderOffset: UInt64
    let sectionHeaderEntrySize: UInt16
    let sectionHeaderCount: UInt16

    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic
    }

    static func fileClass(of ident: [UInt8]) -> FileClass {
        switch ident[4] {  // EI_CLASS
        case 1: .elf32
        case 2: .elf64
        case let other: .unknown(other)
        }
    }

    /// Decodes a 64-bit header; `bytes` holds at least `size64` bytes.
    init(elf64 bytes: [UInt8]) {
        let fields = ElfFields(bytes, littleEndian: bytes[5] != 2)  // EI_DATA: 2 is ELFDATA2MSB
        fileClass = ElfHeader.fileClass(of: bytes)
        isLittleEndian = fields.littleEndian
        type =
            switch fields.u16(at: 16) {
            case 1: .relocatable
            case 2: .executable
            case 3: .sharedObject
            case 4: .core
            case let other: .other(other)
            }
        machine = fields.u16(at: 18)
        programHeaderOffset = fields.u64(at: 32)
        sectionHeaderOffset = fields.u64(at: 40)
        programHeaderEntrySize = fields.u16(at: 54)
        programHeaderCount = fields.u16(at: 56)
        sectionHeaderEntrySize = fields.u16(at: 58)
        sectionHeaderCount = fields.u16(at: 60)
    }
}

/// One `Elf64_Phdr`: only the members the checks use.
struct ElfProgramHeader {
    static let interpreter: UInt32 = 3  // PT_INTERP
    static let load: UInt32 = 1  // PT_LOAD

    let type: UInt32
    let offset: UInt64
    let fileSize: UInt64

    init(_ fields: ElfFields, at base: Int) {
        type = fields.u32(at: base)
        offset = fields.u64(at: base + 8)
        fileSize = fields.u64(at: base + 32)
    }
}

/// One `Elf64_Shdr`: only the members the checks use.
struct ElfSectionHeader {
    /// `sizeof(Elf64_Shdr)`.
    static let size64 = 64
    static let dynamicSymbols: UInt32 = 11  // SHT_DYNSYM

    let type: UInt32
    let offset: UInt64
    let size: UInt64
    /// For a symbol table, the index of its string table's section.
    let link: UInt32
    let entrySize: UInt64

    init(_ fields: ElfFields, at base: Int) {
        type = fields.u32(at: base + 4)
        offset = fields.u64(at: base + 24)
        size = fields.u64(at: base + 32)
        link = fields.u32(at: base + 40)
        entrySize = fields.u64(at: base + 56)
    }
}

/// One `Elf64_Sym`.
struct ElfSymbol {
    /// `sizeof(Elf64_Sym)`.
    static let size64 = 24
    // STT_*: the low four bits of st_info.
    static let object: UInt8 = 1
    static let function: UInt8 = 2
    static let common: UInt8 = 5
    static let threadLocal: UInt8 = 6
    static let indirectFunction: UInt8 = 10  // STT_GNU_IFUNC
    static let absoluteSection: UInt16 = 0xFFF1  // SHN_ABS

    let nameOffset: UInt32
    let type: UInt8
    /// STB_*: the high four bits of st_info.
    let binding: UInt8
    /// STV_*: the low two bits of st_other.
    let visibility: UInt8
    let sectionIndex: UInt16
    let value: UInt64
    let size: UInt64

    init(_ fields: ElfFields, at base: Int) {
        nameOffset = fields.u32(at: base)
        let info = fields.bytes[base + 4]
        type = info & 0xF
        binding = info >> 4
        visibility = fields.bytes[base + 5] & 0x3
        sectionIndex = fields.u16(at: base + 6)
        value = fields.u64(at: base + 8)
        size = fields.u64(at: base + 16)
    }

    /// Not an import (SHN_UNDEF).
    var isDefined: Bool { sectionIndex != 0 }

    /// Global or weak (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE), with default or protected
    /// visibility: what dlsym finds.
    var isVisibleToDlsym: Bool { [1, 2, 10].contains(binding) && (visibility == 0 || visibility == 3) }

    /// A version that a version script names (`GUEST_1 { global: ...; }`), as GNU ld and gold
    /// list it: an absolute object of value and size 0, neither code nor data of the library.
    var isVersionName: Bool {
        sectionIndex == ElfSymbol.absoluteSection && type == ElfSymbol.object && value == 0 && size == 0
    }
}

/// Reads fixed-width integers out of raw ELF bytes in the file's byte order.
struct ElfFields {
    let bytes: [UInt8]
    let littleEndian: Bool

    init(_ bytes: [UInt8], littleEndian: Bool) {
        self.bytes = bytes
        self.littleEndian = littleEndian
    }

    func u16(at offset: Int) -> UInt16 { UInt16(truncatingIfNeeded: integer(at: offset, width: 2)) }
    func u32(at offset: Int) -> UInt32 { UInt32(truncatingIfNeeded: integer(at: offset, width: 4)) }
    func u64(at offset: Int) -> UInt64 { integer(at: offset, width: 8) }

    private func integer(at offset: Int, width: Int) -> UInt64 {
        let slice = bytes[offset..<offset + width]
        let ordered = littleEndian ? Array(slice.reversed()) : Array(slice)
        return ordered.reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
