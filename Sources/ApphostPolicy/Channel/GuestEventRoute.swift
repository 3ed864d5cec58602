import ApphostVocabulary

/// Routes what a guest sends to its record; the guest's id is known only once it has loaded.
final class GuestEventRoute: @unchecked Sendable {
    // Written and read on the host queue only.
    let path: String
    var id: String?
    /// The id the opener read from the descriptor, before the launch (and `id`) is settled: it
    /// names what the guest sends from init.
    var identifiedAs: String?
    /// The channel of the launch this route serves: a late word from an earlier one is ignored.
    weak var channel: (any GuestChannel)?
    /// Background and audio requests that arrived before the channel opened (a guest thread may
    /// make them right after init), handled once it has.
    var early: [GuestEvent] = []
    init(path: String) { self.path = path }
}
