import CApphost

/// What a guest library exports besides `apphost_entry`, as its dynamic symbol table says; what
/// `apphost inspect` reports. The host looks up `apphost_entry` alone and loads guests
/// RTLD_LOCAL, so another export harms no other guest; but the guest's own references to a
/// plain C name it exports (`init`, `log`) may bind, when it loads, to a definition of the same
/// name that comes earlier in the lookup scope (the host's, libc's, libm's). Swift-mangled names
/// name their module, so nothing else defines them. sdk/README.md, "One exported symbol".
public struct GuestExports: Sendable, Equatable, Encodable {
    /// Swift-mangled names: `$s`, `_$s`, and the older `$S` and `_T0` manglings.
    public var swiftSymbols: Int
    /// Every other name (C, C++'s `_Z...`), each once, sorted.
    public var otherSymbols: [String]

    public init(swiftSymbols: Int, otherSymbols: [String]) {
        self.swiftSymbols = swiftSymbols
        self.otherSymbols = otherSymbols
    }

    /// The exports of the library at `path`; nil when its file does not tell (no section headers,
    /// no readable dynamic symbol table) or cannot be read. Reads the file, never loads it.
    public static func read(path: String) -> GuestExports? { ElfInspector.exports(path: path) }

    /// Classifies `names`, those of the defined symbols dlsym finds, each counted once: the
    /// entry itself and what linkers add to every library are left out.
    init(names: some Sequence<String>) {
        var swift = Set<String>()
        var other = Set<String>()
        for name in names where name != APPHOST_ENTRY_SYMBOL && !Self.linkerSymbols.contains(name) {
            if Self.swiftManglingPrefixes.contains(where: name.hasPrefix) {
                swift.insert(name)
            } else {
                other.insert(name)
            }
        }
        swiftSymbols = swift.count
        otherSymbols = other.sorted()
    }

    /// Whether the library exports `apphost_entry` and nothing else.
    public var isEntryOnly: Bool { swiftSymbols == 0 && otherSymbols.isEmpty }

    static let swiftManglingPrefixes = ["$s", "_$s", "$S", "_$S", "_T0"]

    /// Symbols a linker defines in every library it makes, not the guest's code or data. gold
    /// exports `__bss_start`, `_edata` and `_end` from a library linked without a version script,
    /// older GNU ld `_init` and `_fini` too; the rest are GNU ld's names of them on ARM.
    static let linkerSymbols: Set<String> = [
        "_init", "_fini", "_edata", "_end", "__bss_start", "__bss_start__", "__bss_end__", "_bss_end__", "__end__",
    ]
}
