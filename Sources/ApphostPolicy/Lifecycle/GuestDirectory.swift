import ApphostModel
import ApphostVocabulary
import Foundation

/// The guests the host knows, in the order they were first loaded (a record stays once made),
/// and how operators name them and their scenes, for every control verb and transport: the one
/// place for those rules, and for why a command cannot act on the guest it names. It owns the
/// list; the core only adds to it. Confined to the host queue, like the core that keeps it.
struct GuestDirectory {
    private(set) var all: [GuestRecord] = []
    /// The same records by id: with thousands of guests, finding one for each event by a scan of
    /// `all` was the host queue's largest cost.
    private var byID: [String: GuestRecord] = [:]

    subscript(id: String) -> GuestRecord? { byID[id] }

    /// Keeps a guest's record from its first load on.
    mutating func add(_ guest: GuestRecord) {
        all.append(guest)
        byID[guest.id] = guest
    }

    /// The record of the guest `descriptor` describes, loaded from `path`: made on its first load
    /// (`new`), or taken up again, with what it is now, when it does not run. Nil while another
    /// launch of it runs (another launch may have got there first).
    mutating func load(_ descriptor: GuestDescriptor, from path: String, now: Date) -> (GuestRecord, new: Bool)? {
        guard let known = self[descriptor.id] else {
            let guest = GuestRecord(descriptor: descriptor, path: path, now: now)
            add(guest)
            return (guest, true)
        }
        guard known.phase == .notRunning else { return nil }
        known.path = path
        known.descriptor = descriptor
        return (known, false)
    }

    /// Guest ids for an error message: the first few, and how many more, so that a host of
    /// thousands of guests still answers in one short line.
    func loadedIDs() -> String {
        let shown = all.prefix(5).map(\.id).joined(separator: ", ")
        return all.count > 5 ? "\(shown) and \(all.count - 5) more" : shown
    }

    /// Why a command names no guest it knows.
    func unknown(_ id: String) -> HostCommandError {
        let known = loadedIDs()
        return HostCommandError.notFound("no guest \(id)" + (known.isEmpty ? "" : " (loaded: \(known))"))
    }

    /// The guest `id` and its channel, if it runs; else why a command cannot act on it. With
    /// `settled`, one whose suspension or resumption is under way is refused too.
    func running(_ id: String, settled: Bool = false) -> Result<(GuestRecord, any GuestChannel), HostCommandError> {
        guard let guest = self[id] else { return .failure(unknown(id)) }
        guard guest.phase == .running, let channel = guest.channel else {
            return .failure(HostCommandError("\(id) is not running (\(guest.phase.rawValue))"))
        }
        guard !settled || !guest.changingSuspension else { return .failure(Self.changingSuspension(id)) }
        return .success((guest, channel))
    }

    /// Why a command's guest is no longer there to finish it.
    static func gone(_ id: String) -> HostCommandError {
        HostCommandError("\(id) stopped running meanwhile")
    }

    /// Why a command waits for a suspension or resumption under way.
    static func changingSuspension(_ id: String) -> HostCommandError {
        HostCommandError("\(id) is being suspended or resumed; try again")
    }

    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    func id(named name: String) throws(HostCommandError) -> String {
        if self[name] != nil { return name }
        let matches = all.filter { $0.descriptor.name.lowercased() == name.lowercased() }
        if matches.count == 1 { return matches[0].id }
        if matches.count > 1 {
            throw HostCommandError.invalid(
                "\(name) is ambiguous: it names \(matches.map(\.id).joined(separator: ", "))")
        }
        let loaded = all.isEmpty ? "no guests are loaded" : "loaded: " + loadedIDs()
        throw HostCommandError.notFound("no guest \(name) (\(loaded))")
    }

    /// A scene by its session id, a unique prefix of one (at least 4 characters), or its
    /// connection's handle; with the guest it belongs to.
    func scene(named name: String) -> Result<(GuestRecord, Int), HostCommandError> {
        if let handle = SceneHandle(name) {
            for guest in all { if let index = guest.sceneIndex(handle: handle) { return .success((guest, index)) } }
        }
        let lowered = name.lowercased()
        var found: [(GuestRecord, Int)] = []
        for guest in all {
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
}

extension Result {
    /// The value, or nil after handing the error to `completion`: a command's lookup that fails
    /// it with why not.
    func value<T>(orFail completion: (Swift.Result<T, Failure>) -> Void) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let error):
            completion(.failure(error))
            return nil
        }
    }
}
