import ApphostModel
import ApphostVocabulary

/// What the audio sessions say should happen, for its runner to carry out in order
/// (`AudioRunner`). Each names the guest it concerns: a change of one guest's session
/// reaches others (C5 to C11).
enum AudioEffect: Equatable, Sendable {
    /// Send this call to the guest now.
    case deliver(GuestCall, to: String)
    /// Send these calls together, in order (what waited while it was suspended, B8, C14).
    case deliverAll([GuestCall], to: String)
    /// Record this event.
    case record(
        HostEvent.Kind, guest: String? = nil, reason: TransitionReason? = nil, name: String? = nil,
        message: String? = nil)
    /// Tell the host's metrics.
    case measure(HostMeasurement)
    /// Wake the guest, suspended automatically, so that it may take up its sound again (B6, B9).
    case resume(String)
    /// The guest's audio started or stopped keeping it running in background (B9): the background
    /// scheduler hears so.
    case playsInBackgroundChanged(String)
    /// X7: the guest kept flooding: terminate it, reason flooding.
    case terminate(String)
    /// C13: open the guest's stream at the mixer and hand it to its runtime; the outcome comes back
    /// to `AudioSessions.streamRefused` or `.streamAnswered`.
    case openStream(String)
    /// C13: tell the mixer how the guest's session sounds from now on; with `announce`, record
    /// from which period (`AudioSessions.mixEvent`).
    case setMix(String, AudioMix, announce: Bool)
    /// C13: the mixer forgets the guest's stream.
    case closeStream(String)
    /// C13: read the mixer's meters and hand them to `AudioSessions.metersRead`.
    case readMeters
    /// Demote the guest's real-time audio thread (issue 34, point 9); the outcome comes back to
    /// `AudioSessions.demoted`.
    case demote(String, thread: Int32, RenderDeadlineWatch.Demotion)
    /// Arm `token` on the clock, `after` from now; hand it back to `AudioSessions.tick`.
    case schedule(AudioToken, after: Duration)
    /// Disarm `token`: it must not fall due.
    case cancel(AudioToken)
}
