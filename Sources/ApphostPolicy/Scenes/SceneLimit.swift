import ApphostModel
import ApphostVocabulary

/// CONTRACT S6: the host keeps at most `limit` scenes connected in background, over all guests,
/// and disconnects the ones that went to background longest ago. Their sessions and last saved
/// states stay; each reconnects with them when it is next shown.
struct SceneLimit {
    /// nil for no limit.
    let limit: Int?

    /// A scene connected in background, as the core sees it.
    struct Connected: Equatable, Sendable {
        var scene: SceneRef
        var handle: SceneHandle
        /// When it went to background (host uptime).
        var since: Duration
        /// Its guest is stopped (B7): it hears of the disconnection when it runs again.
        var stopped: Bool
    }

    /// Of the scenes connected in background, in the host's order, the disconnections over the
    /// limit, oldest first: did-disconnect for each, held while its guest is stopped.
    func overLimit(_ connected: [Connected]) -> [(guest: String, effect: SceneEffect)] {
        guard let limit, connected.count > limit else { return [] }
        let oldest = connected.sorted { $0.since < $1.since }.prefix(connected.count - limit)
        return oldest.map {
            (
                $0.scene.guest,
                .disconnect(session: $0.scene.session, handle: $0.handle, reason: .automatic, held: $0.stopped)
            )
        }
    }

    /// The same over `guests`' scenes connected in background, in the host's order (`find` looks
    /// one up by id), each with its guest; nothing to gather when there is no limit.
    func overLimit(of guests: [GuestRecord], find: (String) -> GuestRecord?) -> [(GuestRecord, SceneEffect)] {
        guard limit != nil else { return [] }
        var connected: [Connected] = []
        for guest in guests { guest.backgroundScenes(into: &connected) }
        return overLimit(connected).compactMap { over in find(over.guest).map { ($0, over.effect) } }
    }
}
