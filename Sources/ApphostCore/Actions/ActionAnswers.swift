import ApphostModel
import ApphostVocabulary

/// The core's side of `ActionCalls`' effects: each call's operator completion and the clock's
/// handle of its deadline, by id, so that the part holds values only. Confined to the host queue,
/// like the core that keeps it.
struct ActionAnswers {
    typealias Completion = @Sendable (Result<ActionValue?, HostCommandError>) -> Void

    private var completions: [ActionCallID: Completion] = [:]
    private var deadlines: [ActionCallID: any ScheduledAction] = [:]

    mutating func expect(_ call: ActionCallID, _ completion: @escaping Completion) {
        completions[call] = completion
    }

    /// The operator's completion for `call`, once.
    mutating func take(_ call: ActionCallID) -> Completion? {
        completions.removeValue(forKey: call)
    }

    mutating func arm(_ call: ActionCallID, _ action: any ScheduledAction) {
        deadlines[call] = action
    }

    mutating func cancel(_ call: ActionCallID) {
        deadlines.removeValue(forKey: call)?.cancel()
    }

    /// `call`'s deadline runs: true unless it was cancelled meanwhile.
    mutating func fell(_ call: ActionCallID) -> Bool {
        deadlines.removeValue(forKey: call) != nil
    }
}
