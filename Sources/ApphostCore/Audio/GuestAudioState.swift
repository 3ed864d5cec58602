import ApphostModel

/// What the host core keeps of one guest's audio beside the arbiter's session: what waits for it
/// while it is suspended, the route conformance check under way, and what operators last heard of
/// its place in the mix.
struct GuestAudioState {
    /// B8, C14.
    var held = HeldAudio()
    /// C10: a guest that was playing when its output went away should pause; this checks it did.
    var conformanceCheck: (any ScheduledAction)?
    /// How many times it went on playing after its output went away (C10), for operators.
    var nonconformances = 0
    /// Ducked and muted as the event stream last said, so that it says each change once.
    var ducked = false
    var muted = false

    /// Forgets everything of a run.
    mutating func reset() {
        conformanceCheck?.cancel()
        self = GuestAudioState(nonconformances: nonconformances)
    }
}
