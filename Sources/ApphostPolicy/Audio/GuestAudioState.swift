import ApphostModel
import ApphostVocabulary

/// What the audio sessions keep of one guest beside the arbiter's session and its stream: what
/// waits for it while it is suspended, its requests against their limit, the route conformance
/// check under way, and what operators last heard of its place in the mix. Changed only by
/// `AudioSessions`, in place.
struct GuestAudioState {
    /// B8, C14.
    var held = HeldAudio()
    /// X7: its audio session's requests, against `FloodPolicy.audioRequests`.
    var requests = FloodGuard()
    /// B9: its session is active and may play in background (the arbiter says so), which keeps
    /// it from suspension.
    private(set) var playsInBackground = false
    /// C10: a guest that was playing when its output went away should pause; this checks it did.
    var conformanceCheck: AudioToken?
    /// How many times it went on playing after its output went away (C10), for operators.
    var nonconformances = 0
    /// Ducked and muted as the event stream last said, so that it says each change once.
    private var ducked = false
    private var muted = false

    /// C8, C9, B9: says what changed of its place in the mix since the last time.
    mutating func levelChanged(
        _ id: String, ducked: Bool, muted: Bool, playsInBackground plays: Bool, into effects: inout [AudioEffect]
    ) {
        if ducked != self.ducked {
            self.ducked = ducked
            effects.append(.record(.audioLevel, guest: id, name: ducked ? "ducked" : "unducked"))
        }
        if muted != self.muted {
            self.muted = muted
            effects.append(.record(.audioLevel, guest: id, name: muted ? "muted" : "unmuted"))
        }
        if plays != playsInBackground {
            playsInBackground = plays
            effects.append(.playsInBackgroundChanged(id))
        }
    }

    /// Forgets everything of a run but what operators count over runs; a new launch starts afresh.
    mutating func reset(into effects: inout [AudioEffect]) {
        if let check = conformanceCheck { effects.append(.cancel(check)) }
        self = GuestAudioState(nonconformances: nonconformances)
    }
}
