import ApphostModel
import ApphostVocabulary

/// What the audio sessions need to know of a guest from the core at the moment of an input.
/// Inputs that reach other guests than the one they concern take a lookup, by id, that
/// answers nil for a guest the core does not know.
struct AudioFacts: CarriesGuestLife, Equatable, Sendable {
    var life: GuestLife
    /// Suspended, and by the host's automatic suspension (B6).
    var suspendedAutomatically: Bool
    var appState: AppState
    /// It declares APPHOST_CAPABILITY_BACKGROUND_AUDIO (B9).
    var declaresBackgroundAudio: Bool

    /// Shown and running: where secondary-audio hints go (C11).
    var inForeground: Bool { !life.stopped && (appState == .active || appState == .inactive) }
}

extension AudioFacts {
    /// What `guest` is now.
    init(_ guest: GuestRecord) {
        self.init(
            life: GuestLife(guest),
            suspendedAutomatically: guest.suspension == .suspended && guest.suspendedFor?.reason == .automatic,
            appState: guest.appState, declaresBackgroundAudio: guest.descriptor.capabilities.contains(.backgroundAudio))
    }
}
