/// CONTRACT S6: the host keeps at most `backgroundSceneLimit` scenes connected in background,
/// over all guests, and disconnects the one that went to background longest ago. Its session
/// and its last saved state stay; it reconnects with them when it is next shown.
extension HostCore {
    func disconnectScenesOverLimit() {
        guard let limit = backgroundSceneLimit else { return }
        var connected = guests.filter { $0.phase == .running && $0.channel != nil }.flatMap { guest in
            guest.scenes.indices.filter { guest.scenes[$0].state == .background }.map { (guest, $0) }
        }
        guard connected.count > limit else { return }
        connected.sort { $0.0.scenes[$0.1].backgroundSince < $1.0.scenes[$1.1].backgroundSince }
        for (guest, index) in connected.prefix(connected.count - limit) { disconnect(guest, scene: index) }
    }

    /// did-disconnect, then unattached. A suspended guest hears of it first thing on resume (B7).
    private func disconnect(_ guest: GuestRecord, scene index: Int) {
        guard let handle = guest.scenes[index].handle else { return }
        setSceneState(guest, scene: index, to: .unattached, reason: .automatic)
        guest.scenes[index].handle = nil
        if guest.stopped {
            guest.held.holdDisconnect(handle)
        } else {
            deliver(guest, .scene(handle, .didDisconnect), sceneState: .unattached)
        }
    }
}
