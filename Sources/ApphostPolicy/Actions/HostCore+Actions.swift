import ApphostModel
import ApphostVocabulary

/// The core's side of typed actions (CONTRACT F1 to F3): it hands an operator's call, the guest's
/// reported results and the calls' replies to `ActionCalls` and carries out what it says.
extension HostCore {
    /// Calls `action` of guest `name` (an id, or a descriptor name) with `arguments`. `completion`
    /// runs once, on the host queue, with the action's result (nil for one that returns nothing),
    /// or one line saying why there is none (`ActionCalls`).
    public func callAction(
        guest name: String, action actionName: String, arguments: ActionArguments,
        completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void
    ) {
        assertOnHostQueue()
        let id: String
        do { id = try guestID(named: name) } catch { return completion(.failure(error)) }
        guard let guest = guest(id) else { return completion(.failure(HostCommandError.notFound("no guest \(name)"))) }
        let (call, effects) = actions.call(actionName, arguments: arguments, of: id, ActionFacts(guest))
        actionAnswers.expect(call, completion)
        perform(effects, for: guest)
    }

    /// Carries out what the action calls part said, in order.
    func perform(_ effects: [ActionEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .deliver(let call, let message):
                deliver(guest, message) { [weak self] reply in
                    guard let self else { return }
                    self.perform(self.actions.replied(call, reply, ActionFacts(guest)), for: guest)
                }
            case .answer(let call, let result):
                actionAnswers.take(call)?(result)
            case .schedule(let call, let delay):
                arm(call, after: delay) { $0.perform($0.actions.deadline(call, ActionFacts(guest)), for: guest) }
            case .cancel(let call):
                alarms.cancel(call)
            }
        }
    }
}
