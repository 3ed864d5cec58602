import ApphostModel
import ApphostVocabulary

/// Carries out typed actions (CONTRACT F1 to F3): hands an operator's call, the guest's reported
/// results and the calls' replies to `ActionCalls`, and does what it says through the outbox. It
/// owns the part and each call's operator completion, by id (the deadlines are the outbox's
/// timers, by the same id).
///
/// Confined to the host queue, like the core that keeps it.
public final class ActionRunner: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<ActionValue?, HostCommandError>) -> Void

    private var actions: ActionCalls
    private var completions: [ActionCallID: Completion] = [:]
    private let outbox: GuestOutbox
    /// The clock's handles of the part's timers, by token.
    private var alarms = Alarms<ActionCallID>()
    private let hostQueue: any HostExecutor
    weak var lifecycle: (any LifecycleOrders)?

    init(limit: Duration, outbox: GuestOutbox, hostQueue: any HostExecutor) {
        actions = ActionCalls(limit: limit)
        (self.outbox, self.hostQueue) = (outbox, hostQueue)
    }

    /// Calls `action` of guest `name` (an id, or a descriptor name) with `arguments`. `completion`
    /// runs once, on the host queue, with the action's result (nil for one that returns nothing),
    /// or one line saying why there is none (`ActionCalls`).
    public func call(
        guest name: String, action: String, arguments: ActionArguments, completion: @escaping Completion
    ) {
        hostQueue.preconditionCurrent()
        do throws(HostCommandError) {
            guard let lifecycle, let guest = lifecycle.guest(try lifecycle.guestID(named: name)) else {
                throw .notFound("no guest \(name)")
            }
            let (call, effects) = actions.call(action, arguments: arguments, of: guest.id, ActionFacts(guest))
            completions[call] = completion
            perform(effects, for: guest)
        } catch { completion(.failure(error)) }
    }

    /// F2: the guest's runtime reported a result, before its call's reply.
    func reported(_ outcome: ActionOutcome, by id: String) { actions.reported(outcome, by: id) }

    /// The guest's run ended: a result whose reply never came (it died between them) answers nothing.
    func ended(_ id: String) { actions.ended(id) }

    private func perform(_ effects: [ActionEffect], for guest: GuestRecord) {
        for effect in effects {
            switch effect {
            case .deliver(let call, let message):
                outbox.deliver(guest, message) { [weak self] reply in
                    guard let self else { return }
                    self.perform(self.actions.replied(call, reply, ActionFacts(guest)), for: guest)
                }
            case .answer(let call, let result):
                completions.removeValue(forKey: call)?(result)
            case .schedule(let call, let delay):
                let action = outbox.schedule(after: delay) { [weak self] _ in
                    guard let self, self.alarms.fell(call) else { return }
                    self.perform(self.actions.deadline(call, ActionFacts(guest)), for: guest)
                }
                action.map { alarms.arm(call, $0) }
            case .cancel(let call):
                alarms.cancel(call)
            }
        }
    }
}
