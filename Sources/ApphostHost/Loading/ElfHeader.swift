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
