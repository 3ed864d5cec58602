import ApphostModel
import ApphostVocabulary
import CApphost

/// Typed actions (CONTRACT F1 to F3): an operator calls one of a guest's declared actions by name;
/// the arguments are checked against its signature before anything reaches the guest, and the
/// reply is its typed result or one line saying why there is none.
extension HostCore {
    /// Calls `action` of guest `name` (an id, or a descriptor name) with `arguments`. `completion`
    /// runs once, on the host queue, with the action's result (nil for one that returns nothing).
    ///
    /// Refused at once: an unknown guest or action, arguments that are not the declared ones, a
    /// guest that is not running or still launching, a suspended guest (an action never wakes
    /// one: the operator resumes it first), and a foreground-only action of a guest in
    /// background. A guest that crashes in the action, or does not return from it within the
    /// watchdog's hard limit, fails the call with that (F3); a call that waited behind another
    /// callback that hung is told it never ran, and which callback hung.
    public func callAction(
        guest name: String, action actionName: String, arguments: ActionArguments,
        completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void
    ) {
        assertOnHostQueue()
        let prepared: (GuestRecord, GuestAction, Int, [ActionValue])
        do {
            prepared = try prepareAction(guest: name, action: actionName, arguments: arguments)
        } catch {
            return completion(.failure(error))
        }
        let (guest, action, index, values) = prepared
        let answer = AnswerOnce(completion)
        // In the host's process nothing can stop a guest that hangs: the caller hears of it at the
        // watchdog's hard limit. A worker is stopped then, and its death answers the call instead.
        let limit = watchdog.policy.hardLimit
        // Its place in the guest's queue of callbacks: the guest takes them in order, one at a time.
        let ticket = guest.calls.sentCount
        let oldest = guest.calls.answeredCount
        let deadline = clock.schedule(after: guest.channel?.processID == nil ? limit : limit + .seconds(1)) {
            if guest.calls.isWaiting(ticket), let current = guest.calls.current {
                return answer(
                    .failure(
                        HostCommandError(
                            "\(guest.id)'s action \(action.name) never ran: \(guest.id) is still in \(current), which "
                                + "has not returned within \(limit.secondsText), the watchdog's hard limit"
                                + (guest.channel?.processID == nil
                                    ? "; it still runs it in the host's process (use --isolation process)" : ""))))
            }
            // Stopped (frozen, or killed with no answer yet) in a callback this one waited behind.
            if let hung = guest.calls.hung(ahead: ticket, since: oldest), hung.ticket < ticket {
                return answer(
                    .failure(
                        HostCommandError(
                            "\(guest.id)'s action \(action.name) never ran: the watchdog stopped \(guest.id) while it "
                                + "was in \(hung.callback), past \(limit.secondsText)")))
            }
            answer(
                .failure(
                    HostCommandError(
                        "\(guest.id) has not returned from action \(action.name) within \(limit.secondsText), the "
                            + "watchdog's hard limit"
                            + (guest.channel?.processID == nil
                                ? "; it still runs it in the host's process (use --isolation process)" : ""))))
        }
        deliver(guest, .action(action, index: index, arguments: values)) { reply in
            deadline.cancel()
            answer(
                Self.actionResult(
                    of: reply, guest: guest, action: action, ticket: ticket, oldest: oldest, limit: limit))
        }
    }

    /// The guest, the action and its values, or why the call is refused before it is sent.
    private func prepareAction(
        guest name: String, action actionName: String, arguments: ActionArguments
    ) throws(HostCommandError) -> (GuestRecord, GuestAction, Int, [ActionValue]) {
        let id = try guestID(named: name)
        guard let guest = guest(id) else { throw HostCommandError.notFound("no guest \(name)") }
        guard let (index, action) = guest.descriptor.action(named: actionName) else {
            let declared = guest.descriptor.actions.map(\.signature).joined(separator: ", ")
            throw HostCommandError.notFound(
                "\(id) has no action \(actionName) (\(declared.isEmpty ? "it declares none" : "it has \(declared)"))")
        }
        let values = try arguments.values(for: action)
        switch guest.phase {
        case .running: break
        case .launching: throw HostCommandError("\(id) is still launching: actions run once it has launched")
        case .notRunning, .terminating: throw HostCommandError("\(id) is not running")
        }
        guard !guest.stopped else {
            throw HostCommandError(
                "\(id) is suspended, and an action never wakes a guest: resume it first (apphost ctl resume \(id))")
        }
        if action.foreground, guest.appState != .active, guest.appState != .inactive {
            throw HostCommandError(
                "action \(action.name) of \(id) runs only in the foreground, and \(id) is in \(guest.appState)")
        }
        return (guest, action, index, values)
    }

    /// The reply to an action call (the guest's callback number `ticket`) as its caller reads it.
    private static func actionResult(
        of reply: GuestReply, guest: GuestRecord, action: GuestAction, ticket: UInt64, oldest: UInt64,
        limit: Duration
    ) -> Result<ActionValue?, HostCommandError> {
        switch reply {
        case .success(let status):
            let outcome = guest.actionOutcomes.isEmpty ? nil : guest.actionOutcomes.removeFirst()
            switch outcome {
            case .returned(let value) where status == APPHOST_OK.rawValue: return .success(value)
            case .broke(let why): return .failure(HostCommandError("\(guest.id)'s action \(action.name) \(why)"))
            default:
                return .failure(
                    HostCommandError("\(guest.id) could not run action \(action.name): \(StatusName.of(status))"))
            }
        case .failure(.crashed(let cause)):
            // The watchdog killed it in one callback, and every call waiting behind that one went
            // with it: each caller hears which call hung.
            if guest.lastReason == .watchdog, let hung = guest.calls.hung(ahead: ticket, since: oldest) {
                if hung.ticket == ticket {
                    return .failure(
                        HostCommandError(
                            "\(guest.id) was killed by the watchdog in action \(action.name): it ran past "
                                + "\(limit.secondsText), the watchdog's hard limit (\(cause))"))
                }
                return .failure(
                    HostCommandError(
                        "\(guest.id)'s action \(action.name) never ran: the watchdog killed \(guest.id) while it was in "
                            + "\(hung.callback), past \(limit.secondsText)"))
            }
            let what = guest.lastReason == .watchdog ? "was killed by the watchdog" : "crashed"
            return .failure(HostCommandError("\(guest.id) \(what) in action \(action.name): \(cause)"))
        case .failure(.closed):
            return .failure(HostCommandError("\(guest.id) stopped before action \(action.name) returned"))
        case .failure(.failed(let why)):
            return .failure(HostCommandError("action \(action.name) of \(guest.id) failed: \(why)"))
        }
    }
}

/// Calls a completion once: the reply and the deadline race for it, both on the host queue.
private final class AnswerOnce: @unchecked Sendable {
    private var completion: (@Sendable (Result<ActionValue?, HostCommandError>) -> Void)?

    init(_ completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void) {
        self.completion = completion
    }

    func callAsFunction(_ result: Result<ActionValue?, HostCommandError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
