import Synchronization

/// The guests loaded in this process. dlopen of a library that is already loaded returns the same
/// instance, globals and all, so a second copy of a guest would corrupt the first: the in-process
/// opener refuses a guest whose id or library is loaded until its channel closes.
final class LoadedGuestRegistry: Sendable {
    static let shared = LoadedGuestRegistry()

    /// Guest id to canonical library path.
    private let loaded = Mutex<[String: String]>([:])

    /// The id of the guest loaded from `canonicalPath`, if any.
    func id(loadedFrom canonicalPath: String) -> String? {
        loaded.withLock { loaded in loaded.first { $0.value == canonicalPath }?.key }
    }

    /// Records the guest unless its id or library is already loaded; returns the id in the way.
    func reserve(id: String, canonicalPath: String) -> String? {
        loaded.withLock { loaded in
            if loaded[id] != nil { return id }
            if let other = loaded.first(where: { $0.value == canonicalPath })?.key { return other }
            loaded[id] = canonicalPath
            return nil
        }
    }

    func release(id: String) {
        _ = loaded.withLock { $0.removeValue(forKey: id) }
    }
}
