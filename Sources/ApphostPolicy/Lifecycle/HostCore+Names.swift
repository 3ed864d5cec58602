import ApphostVocabulary

extension HostCore {
    // How an operator names guests and scenes, for every control verb and transport: the one
    // place for these rules.

    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    public func guestID(named name: String) throws(HostCommandError) -> String {
        assertOnHostQueue()
        if guest(name) != nil { return name }
        let matches = guests.filter { $0.descriptor.name.lowercased() == name.lowercased() }
        if matches.count == 1 { return matches[0].id }
        if matches.count > 1 {
            throw HostCommandError.invalid(
                "\(name) is ambiguous: it names \(matches.map(\.id).joined(separator: ", "))")
        }
        let loaded = guests.isEmpty ? "no guests are loaded" : "loaded: " + loadedIDs()
        throw HostCommandError.notFound("no guest \(name) (\(loaded))")
    }

    /// A scene by its session id, a unique prefix of one (at least 4 characters), or its
    /// connection's handle; with the guest it belongs to.
    func findScene(_ name: String) -> Result<(GuestRecord, Int), HostCommandError> {
        if let handle = SceneHandle(name) {
            for guest in guests { if let index = guest.sceneIndex(handle: handle) { return .success((guest, index)) } }
        }
        let lowered = name.lowercased()
        var found: [(GuestRecord, Int)] = []
        for guest in guests {
            for index in guest.scenes.indices {
                let session = guest.scenes[index].sessionID
                if session == lowered { return .success((guest, index)) }
                if lowered.count >= 4, session.hasPrefix(lowered) { found.append((guest, index)) }
            }
        }
        if found.count == 1 { return .success(found[0]) }
        if found.count > 1 {
            return .failure(HostCommandError.invalid("scene \(name) is ambiguous: give more of its session id"))
        }
        return .failure(
            HostCommandError.notFound("no scene \(name) (give a session id, a prefix of one, or a scene handle)"))
    }

    /// `findScene`, or nil after failing `completion` with why not.
    func findScene<T>(
        _ name: String, else completion: (Result<T, HostCommandError>) -> Void
    ) -> (GuestRecord, Int)? {
        switch findScene(name) {
        case .success(let found): return found
        case .failure(let error):
            completion(.failure(error))
            return nil
        }
    }
}
