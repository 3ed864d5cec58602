import ApphostModel
import ApphostVocabulary

/// What the background scheduler needs to know of a guest from the core at the moment of an
/// input: where the guest is in its life, whether its code runs, and what else keeps it busy.
struct BackgroundFacts: Equatable, Sendable {
    var phase: GuestPhase
    /// It has a channel (it was opened and not yet unloaded).
    var hasChannel: Bool
    var suspension: Suspension
    var appState: AppState
    /// A callback of it is unanswered.
    var callInFlight: Bool
    /// B9: its audio session keeps it running in background (`AudioSessions.playsInBackground`).
    var playsAudio: Bool

    /// Stopped by the host, or being suspended or resumed: no call reaches it (B7).
    var stopped: Bool { suspension != .running }

    var changingSuspension: Bool { suspension == .suspending || suspension == .resuming }

    /// It runs and its code may run: where a budget's timers act.
    var runsFreely: Bool { phase == .running && hasChannel && !stopped }
}

extension BackgroundFacts {
    /// What `guest` is now; `playsAudio` from its audio session.
    init(_ guest: GuestRecord, playsAudio: Bool) {
        self.init(
            phase: guest.phase, hasChannel: guest.channel != nil, suspension: guest.suspension,
            appState: guest.appState, callInFlight: guest.calls.current != nil, playsAudio: playsAudio)
    }
}
