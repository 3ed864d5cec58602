import ApphostModel

/// Why a file could not be loaded as a guest (CONTRACT X1). `description` is the one-line error
/// the CLI prints: the file, then the cause.
public struct LoadError: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    public enum Cause: Sendable, Codable, Equatable {
        case missingFile
        case isDirectory
        case unreadable(String)
        case notELF
        case truncated
        case notSharedObject(String)
        case wrongArchitecture(found: String, expected: String)
        case wrongELFClass(String)
        case missingEntrySymbol
        /// `apphost_entry` is there but is not an `apphost_entry_t`; the text says what it is.
        case badEntrySymbol(String)
        case unresolvedDependency(String)
        case unresolvedSymbol(String)
        case dlopenFailed(String)
        case unsupportedABIVersion(guest: ABIVersion, host: ABIVersion)
        case invalidDescriptor(String)
        case initFailed(status: Int32, name: String)
        case alreadyLoaded(String)
        /// The guest's data directory could not be made; the text says where and why.
        case dataDirectoryUnavailable(String)
        /// The guest's process died before it finished loading; the text names the signal or exit status.
        case guestCrashed(String)
        /// The guest did not finish loading in time and was killed; the text says what it was doing.
        case timedOut(String)
        /// The worker process that would run the guest could not be started or misbehaved.
        case workerFailed(String)
    }

    public var path: String
    public var cause: Cause

    public init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    public var reason: String {
        switch cause {
        case .missingFile: "no such file"
        case .isDirectory: "is a directory, not a shared library"
        case .unreadable(let why): "cannot read the file: \(why)"
        case .notELF: "not an ELF file"
        case .truncated: "truncated ELF file"
        case .notSharedObject(let kind): "not a shared library but \(kind)"
        case .wrongArchitecture(let found, let expected): "built for \(found), this host runs \(expected)"
        case .wrongELFClass(let found): "built as \(found), this host loads 64-bit libraries"
        case .missingEntrySymbol: "no apphost_entry symbol: not an apphost guest (export apphost_entry)"
        case .badEntrySymbol(let what): what
        case .unresolvedDependency(let what): "missing dependency: \(what)"
        case .unresolvedSymbol(let what): "unresolved symbol: \(what)"
        case .dlopenFailed(let what): "cannot load: \(what)"
        case .unsupportedABIVersion(let guest, let host):
            "unsupported ABI version \(guest) (this host implements \(host) and loads major version \(host.major) only)"
        case .invalidDescriptor(let what): "invalid descriptor: \(what)"
        case .initFailed(let status, let name): "init failed with status \(status) (\(name))"
        case .alreadyLoaded(let id): "a guest with id \(id) is already loaded"
        case .dataDirectoryUnavailable(let why): why
        case .guestCrashed(let what): "the guest crashed while loading: \(what)"
        case .timedOut(let what): "timed out: \(what)"
        case .workerFailed(let why): "worker process failed: \(why)"
        }
    }

    public var description: String { "\(path): \(reason)" }
}
