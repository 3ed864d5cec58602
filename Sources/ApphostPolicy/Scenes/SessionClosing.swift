import ApphostModel
import ApphostVocabulary

/// Closing a scene (CONTRACT S7): it discards its session. The scene leaves the layout (S3 if it
/// was shown), disconnects, and its saved state is deleted; the guest hears did-discard once
/// that is done, or when it next runs: resumed, or launched again, even by a later host.
///
/// It owns the sessions closed while their guest was stopped or not running, by guest id, until
/// the guest hears of them (`announcing`); nothing else writes them. A close takes what it needs
/// to know of the guest then (`CloseFacts`) and returns what should happen as values
/// (`SceneEffect`), in order, or why it cannot be done. Each input costs one lookup of the
/// guest's sessions.
struct SessionClosing {
    private var pending: [String: [String]] = [:]

    /// The sessions of guest `id` closed while it did not run, oldest first, that it has not
    /// heard of yet.
    func pending(of id: String) -> [String] { pending[id] ?? [] }

    /// Closes `session` of guest `id` for good: `reason` is requested for the operator, guest for
    /// the guest's own close_session. A running guest's scene leaves the layout first, then
    /// disconnects; a stopped guest hears of the disconnection and the discard when it runs.
    mutating func close(
        _ session: String, of id: String, _ facts: CloseFacts, reason: TransitionReason
    ) -> Result<[SceneEffect], HostCommandError> {
        guard facts.known else { return .failure(HostCommandError.notFound("no session \(session) of \(id)")) }
        guard !facts.changingSuspension, facts.phase != .launching, facts.phase != .terminating else {
            return .failure(HostCommandError("\(id) is \(facts.phase.rawValue); try again"))
        }
        let runs = facts.phase == .running && !facts.stopped
        var effects: [SceneEffect] = []
        if runs { effects.append(.hide(session: session, reason: reason)) }
        if let handle = facts.handle {
            effects.append(.disconnect(session: session, handle: handle, reason: reason, held: !runs))
        }
        effects.append(.remove(session: session))
        if !runs { pending[id, default: []].append(session) }
        effects.append(.discard(session: session, reason: reason, announce: runs))
        return .success(effects)
    }

    /// Guest `id` hears did-discard of `session` now: it is no longer pending.
    mutating func announcing(_ session: String, of id: String) {
        guard var sessions = pending[id] else { return }
        sessions.removeAll { $0 == session }
        pending[id] = sessions.isEmpty ? nil : sessions
    }
}

/// What `SessionClosing` needs to know of a guest and the session closed.
struct CloseFacts: Equatable, Sendable {
    /// The guest has the session.
    var known: Bool
    /// The session's connection; nil while unattached.
    var handle: SceneHandle?
    var phase: GuestPhase
    /// Stopped by the host, or being suspended or resumed (B7).
    var stopped: Bool
    /// A suspension or resumption is under way.
    var changingSuspension: Bool
}
