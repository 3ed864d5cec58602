import CApphost
import Foundation

/// Loads guest libraries and checks them without running them (CONTRACT X1).
public enum GuestLibrary {
    /// Loads the library at `path`, validates its entry and descriptor without calling init, and
    /// unloads it: for `apphost inspect`. The error's description is the one line to print.
    public static func inspect(path: String) throws(LoadError) -> GuestDescriptor {
        let library = try load(path: path)
        library.close()
        return library.descriptor
    }

    /// Pre-checks the file, dlopens it, reads `apphost_entry`'s ABI version first and then
    /// validates its descriptor. Nothing of the guest has run but its library constructors.
    static func load(path: String) throws(LoadError) -> LoadedGuestLibrary {
        func fail(_ cause: LoadError.Cause) -> LoadError { LoadError(path: path, cause: cause) }

        try ElfInspector.check(path: path)
        let canonicalPath = canonicalize(path)
        // RTLD_NOW: an unresolved symbol fails here, not later inside a callback.
        guard let handle = dlopen(canonicalPath, RTLD_NOW | RTLD_LOCAL) else {
            let message = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            throw fail(DlopenFailure.cause(of: message, loading: canonicalPath))
        }
        _ = dlerror()
        guard let symbol = dlsym(handle, APPHOST_ENTRY_SYMBOL) else {
            dlclose(handle)
            throw fail(.missingEntrySymbol)
        }

        // The version first: a guest of another major may lay the rest of the entry out differently.
        let cVersion = UnsafeRawPointer(symbol).load(as: apphost_version_t.self)
        let version = ABIVersion(major: cVersion.major, minor: cVersion.minor, revision: cVersion.revision)
        guard ABIVersion.current.canLoad(guest: version) else {
            dlclose(handle)
            throw fail(.unsupportedABIVersion(guest: version, host: .current))
        }
        let entry = UnsafeRawPointer(symbol).load(as: apphost_entry_t.self)
        let descriptor: GuestDescriptor
        do {
            descriptor = try DescriptorValidator.descriptor(of: RawGuestEntry(entry, abiVersion: version), path: path)
        } catch {
            dlclose(handle)
            throw error
        }
        return LoadedGuestLibrary(
            path: path, canonicalPath: canonicalPath, handle: handle, entry: entry, descriptor: descriptor)
    }

    /// The symlink-free absolute path. It always contains a slash, so dlopen never searches the
    /// library path for a file name given without a directory.
    static func canonicalize(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path.contains("/") ? path : "./" + path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
