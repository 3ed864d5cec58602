import ApphostModel
import ApphostVocabulary

/// What the background scheduler needs to know of a guest from the core at the moment of an
/// input: where the guest is in its life (`life`: its phase, whether its code runs), and what
/// else keeps it busy.
struct BackgroundFacts: CarriesGuestLife, Equatable, Sendable {
    var life: GuestLife
    var appState: AppState
    /// A callback of it is unanswered.
    var callInFlight: Bool
    /// B9: its audio session keeps it running in background (`AudioSessions.playsInBackground`).
    var playsAudio: Bool
}

extension BackgroundFacts {
    /// What `guest` is now; `playsAudio` from its audio session.
    init(_ guest: GuestRecord, playsAudio: Bool) {
        self.init(
            life: GuestLife(guest), appState: guest.appState, callInFlight: guest.calls.current != nil,
            playsAudio: playsAudio)
    }
}
