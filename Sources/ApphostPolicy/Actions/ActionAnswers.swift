import ApphostModel
import ApphostVocabulary

/// The core's side of `ActionCalls`' answers: each call's operator completion, by id, so that
/// the part holds values only (the calls' deadlines are the core's `alarms`, by the same id).
/// Confined to the host queue, like the core that keeps it.
struct ActionAnswers {
    typealias Completion = @Sendable (Result<ActionValue?, HostCommandError>) -> Void

    private var completions: [ActionCallID: Completion] = [:]

    mutating func expect(_ call: ActionCallID, _ completion: @escaping Completion) {
        completions[call] = completion
    }

    /// The operator's completion for `call`, once.
    mutating func take(_ call: ActionCallID) -> Completion? {
        completions.removeValue(forKey: call)
    }
}
