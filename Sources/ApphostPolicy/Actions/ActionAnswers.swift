import ApphostModel
import ApphostVocabulary

/// The core's side of `ActionCalls`' effects: each call's operator completion and the clock's
/// handle of its deadline, by id, so that the part holds values only. Confined to the host queue,
/// like the core that keeps it.
struct ActionAnswers {
    typealias Completion = @Sendable (Result<ActionValue?, HostCommandError>) -> Void

    private var completions: [ActionCallID: Completion] = [:]
    private var deadlines = Alarms<ActionCallID>()

    mutating func expect(_ call: ActionCallID, _ completion: @escaping Completion) {
        completions[call] = completion
    }

    /// The operator's completion for `call`, once.
    mutating func take(_ call: ActionCallID) -> Completion? {
        completions.removeValue(forKey: call)
    }

    mutating func arm(_ call: ActionCallID, _ action: any ScheduledAction) { deadlines.arm(call, action) }

    mutating func cancel(_ call: ActionCallID) { deadlines.cancel(call) }

    /// `call`'s deadline runs: true unless it was cancelled meanwhile.
    mutating func fell(_ call: ActionCallID) -> Bool { deadlines.fell(call) }
}
