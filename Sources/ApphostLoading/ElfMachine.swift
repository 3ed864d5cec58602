/// `e_machine` values: the host's own, and names for the common ones so that a library built for
/// another architecture is named in the error (CONTRACT X1).
enum ElfMachine {
    #if arch(x86_64)
        static let host: UInt16 = 62
    #elseif arch(arm64)
        static let host: UInt16 = 183
    #elseif arch(arm)
        static let host: UInt16 = 40
    #elseif arch(i386)
        static let host: UInt16 = 3
    #elseif arch(riscv64)
        static let host: UInt16 = 243
    #elseif arch(powerpc64le) || arch(powerpc64)
        static let host: UInt16 = 21
    #elseif arch(s390x)
        static let host: UInt16 = 22
    #else
        #error("unknown host architecture: add its e_machine value")
    #endif

    static let hostIsLittleEndian = 1.littleEndian == 1

    static func name(_ machine: UInt16) -> String {
        switch machine {
        case 2: "sparc"
        case 3: "i386"
        case 8: "mips"
        case 20: "powerpc"
        case 21: "powerpc64"
        case 22: "s390x"
        case 40: "arm"
        case 43: "sparcv9"
        case 50: "ia64"
        case 62: "x86_64"
        case 183: "aarch64"
        case 243: "riscv"
        case 258: "loongarch"
        default: "machine \(machine)"
        }
    }

    /// The architecture as the error shows it; a byte order other than the host's is named too.
    static func describe(_ machine: UInt16, littleEndian: Bool) -> String {
        littleEndian == hostIsLittleEndian
            ? name(machine) : "\(name(machine)) (\(littleEndian ? "little" : "big")-endian)"
    }
}
