import ApphostModel
import ApphostVocabulary

/// What the host core keeps of one guest's audio beside the arbiter's session: what waits for it
/// while it is suspended, the route conformance check under way, and what operators last heard of
/// its place in the mix.
struct GuestAudioState {
    /// B8, C14.
    var held = HeldAudio()
    /// B9: its session is active and may play in background (the arbiter says so), which keeps
    /// it from suspension.
    var playsInBackground = false
    /// C10: a guest that was playing when its output went away should pause; this checks it did.
    var conformanceCheck: (any ScheduledAction)?
    /// How many times it went on playing after its output went away (C10), for operators.
    var nonconformances = 0
    /// Ducked and muted as the event stream last said, so that it says each change once.
    var ducked = false
    var muted = false
    /// The session's stream to the host's mixer (C13), opened at its first activation.
    var stream = AudioStreamState.none
    /// What the mixer was last told of it, and the xruns the last meter reading counted.
    var mix: AudioMix?
    var xrunsMetered: UInt64 = 0
    /// The bad samples (X7) the last meter reading counted, and whether the reading before found
    /// new ones: an episode, said once at its start.
    var badSamplesMetered: UInt64 = 0
    var badSamplesEpisode = false
    /// Whether its audio thread runs real-time (SCHED_FIFO); nil before it started.
    var realtimeRenderer: Bool?
    /// Its audio thread's id, as its runtime reported it, and that thread's render watched
    /// against its deadlines while it runs real-time.
    var renderThread: Int32?
    var renderDeadlines = RenderDeadlineWatch()

    /// Forgets everything of a run but its stream, which the core closes as the guest's app state
    /// becomes notRunning, just after (`audioFollowsAppState`).
    mutating func reset() {
        conformanceCheck?.cancel()
        self = GuestAudioState(nonconformances: nonconformances, stream: stream, mix: mix)
    }
}

/// Where a guest's stream to the mixer is (C13).
enum AudioStreamState: Equatable {
    /// None yet: the session was never active in this run, or the host has no mixer.
    case none
    /// Sent to the guest's runtime, not yet answered.
    case opening
    /// The guest's audio thread renders into it.
    case open
    /// The runtime refused it (a guest without render: UNSUPPORTED), or the mixer could not
    /// make one; not asked again in this run.
    case refused
}
