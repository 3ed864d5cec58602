import ApphostVocabulary

extension Array where Element == HostEvent {
    /// The callbacks `guest` logged, by name ("did_become_active"), in the order it logged them:
    /// the samples log "callback <name>" or "callback <name> scene=<handle>" from each callback.
    func loggedCallbacks(of guest: String) -> [String] {
        compactMap { event in
            guard event.kind == .log, event.guest == guest, let message = event.message,
                message.hasPrefix("callback ")
            else { return nil }
            return message.dropFirst("callback ".count).split(separator: " ").first.map(String.init)
        }
    }

    /// The events from index `start` on.
    func since(_ start: Int) -> [HostEvent] { Array(dropFirst(start)) }
}
