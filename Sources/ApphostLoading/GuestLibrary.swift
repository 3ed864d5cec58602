import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation

/// Loads guest libraries into this process with the C guest runtime (`ahr_load`) and checks them
/// without running them (CONTRACT X1), as a worker process does for the guests it runs.
public enum GuestLibrary {
    /// A library `ahr_load` mapped, whose entry and descriptor passed validation. Nothing of the
    /// guest has run but its library constructors. Its owner ends it with `ahr_stop`.
    package struct Loaded {
        package let runtime: OpaquePointer
        /// The resolved path that dlopen was given: the library's identity in this process.
        package let canonicalPath: String
        package let descriptor: GuestDescriptor
    }

    /// Loads the library at `path`, validates its entry and descriptor without calling init, and
    /// unloads it: for `apphost inspect`. The error's description is the one line to print.
    public static func inspect(path: String) throws(LoadError) -> GuestDescriptor {
        let library = try load(path: path)
        ahr_stop(library.runtime)
        return library.descriptor
    }

    /// Pre-checks the file, dlopens it and reads `apphost_entry` (`ahr_load`), then validates
    /// what it declares as the worker path does: DescriptorValidator, ABI version first.
    package static func load(path: String) throws(LoadError) -> Loaded {
        try ElfInspector.check(path: path)
        let canonicalPath = canonicalize(path)
        var runtime: OpaquePointer?
        var error = [CChar](repeating: 0, count: 4096)
        let result = ahr_load(canonicalPath, &runtime, &error, error.count)
        guard result == AHR_LOAD_OK, let runtime else {
            let detail = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch result {
            case AHR_LOAD_NO_ENTRY:
                throw LoadError(path: path, cause: .missingEntrySymbol)
            case AHR_LOAD_DLOPEN_FAILED:
                throw LoadError(path: path, cause: DlopenFailure.cause(of: detail, loading: canonicalPath))
            default:
                throw LoadError(path: path, cause: .dlopenFailed(detail))
            }
        }
        let descriptor: GuestDescriptor
        do {
            descriptor = try DescriptorValidator.descriptor(
                of: RawGuestEntry(ahr_descriptor(runtime).pointee), path: path)
        } catch {
            ahr_stop(runtime)
            throw error
        }
        return Loaded(runtime: runtime, canonicalPath: canonicalPath, descriptor: descriptor)
    }

    /// The symlink-free absolute path. It always contains a slash, so dlopen never searches the
    /// library path for a file name given without a directory.
    package static func canonicalize(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path.contains("/") ? path : "./" + path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
