import ApphostControl

extension ControlResponder {
    /// The host's reply line to `command`, awaited without holding a thread: the host answers
    /// from its queue.
    func answer(_ command: any ControlCommand) async -> String {
        await withCheckedContinuation { continuation in
            respond(to: command) { continuation.resume(returning: $0) }
        }
    }
}
