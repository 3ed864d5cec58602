import Synchronization

/// The guests loaded in this process. dlopen of a library that is already loaded returns the same
/// instance, globals and all, so a second copy of a guest would corrupt the first: the in-process
/// opener refuses a guest whose id or library is loaded until its channel closes.
final class LoadedGuestRegistry: Sendable {
    static let shared = LoadedGuestRegistry()

    /// Guest id to canonical library path, and back: both are looked up at every load.
    private let loaded = Mutex<(paths: [String: String], ids: [String: String])>(([:], [:]))

    /// The id of the guest loaded from `canonicalPath`, if any.
    func id(loadedFrom canonicalPath: String) -> String? {
        loaded.withLock { $0.ids[canonicalPath] }
    }

    /// Records the guest unless its id or library is already loaded; returns the id in the way.
    func reserve(id: String, canonicalPath: String) -> String? {
        loaded.withLock { loaded in
            if loaded.paths[id] != nil { return id }
            if let other = loaded.ids[canonicalPath] { return other }
            loaded.paths[id] = canonicalPath
            loaded.ids[canonicalPath] = id
            return nil
        }
    }

    func release(id: String) {
        loaded.withLock { loaded in
            if let path = loaded.paths.removeValue(forKey: id) { loaded.ids[path] = nil }
        }
    }
}
