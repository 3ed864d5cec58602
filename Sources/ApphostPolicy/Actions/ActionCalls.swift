import ApphostModel
import ApphostVocabulary
import CApphost
import DequeModule

/// Typed actions (CONTRACT F1 to F3): an operator calls one of a guest's declared actions by
/// name; the arguments are checked against its signature before anything reaches the guest, and
/// the answer is its typed result or one line saying why there is none. This part owns the calls
/// under way and the results each guest's runtime reported (ACTION_RESULT, F2), each paired with
/// its call's reply, in order; nothing else writes them.
///
/// It takes inputs (a call, a reported result, a reply, a deadline falling due) with what it
/// needs to know of the guest then (`ActionFacts`) and returns what should happen as values
/// (`ActionEffect`). The operator's completions and the clock's handles stay with its runner, by
/// `ActionCallID` (`ActionRunner`).
///
/// Every input costs the same however many calls are under way: one lookup by id, and one of
/// the guest's results, a deque's first.
struct ActionCalls {
    /// How long a caller waits for a guest that does not return: the watchdog's hard limit.
    let limit: Duration
    private var pending: [ActionCallID: Pending] = [:]
    /// F2: each guest's reported results, until its calls' replies take them, oldest first. At
    /// most one for each call of the guest's under way: a runtime that reports more has them
    /// dropped, so that the queue stays bounded.
    private var results: [String: Deque<ActionOutcome>] = [:]
    /// Each guest's calls under way, the bound of its results.
    private var underWay: [String: Int] = [:]
    private var serial: UInt64 = 0

    /// A call sent and not yet replied to.
    private struct Pending {
        let guest: String
        let action: GuestAction
        /// Its place in the guest's queue of callbacks (`CallWatch`'s tickets), and the oldest
        /// unanswered one's when it was sent.
        let ticket: UInt64
        let oldest: UInt64
        /// Its deadline answered it already: the reply only takes its result.
        var answered = false
    }

    init(limit: Duration) {
        self.limit = limit
    }

    /// How many results the guest `id` has reported that no reply has taken yet.
    func resultsWaiting(of id: String) -> Int { results[id]?.count ?? 0 }

    /// How many calls are sent and not yet replied to, over all guests.
    var callsUnderWay: Int { pending.count }

    // MARK: Inputs

    /// An operator calls `actionName` of the guest `id` with `arguments`: refused at once (an
    /// unknown action, arguments that are not the declared ones, a guest that is not running or
    /// still launching, a suspended guest, a foreground-only action of a guest in background), or
    /// sent with a deadline at the watchdog's hard limit (a second more for a worker, whose death
    /// answers the call instead).
    mutating func call(
        _ actionName: String, arguments: ActionArguments, of id: String, _ facts: ActionFacts
    ) -> (ActionCallID, [ActionEffect]) {
        serial += 1
        let call = ActionCallID(serial: serial)
        let index: Int
        let action: GuestAction
        let values: [ActionValue]
        do {
            (index, action, values) = try Self.check(actionName, arguments: arguments, of: id, facts)
        } catch {
            return (call, [.answer(call, .failure(error))])
        }
        pending[call] = Pending(
            guest: id, action: action, ticket: facts.calls.sentCount, oldest: facts.calls.answeredCount)
        underWay[id, default: 0] += 1
        let wait = facts.inProcess ? limit : limit + .seconds(1)
        return (call, [.schedule(call, after: wait), .deliver(call, .action(action, index: index, arguments: values))])
    }

    /// F2: the guest's runtime reported how an action it was called in ended, before that call's
    /// reply. Dropped when no call of the guest's waits for it.
    mutating func reported(_ result: ActionOutcome, by id: String) {
        guard resultsWaiting(of: id) < underWay[id] ?? 0 else { return }
        results[id, default: []].append(result)
    }

    /// The call's reply came: it takes the guest's oldest reported result, and answers the
    /// operator unless the deadline did.
    mutating func replied(_ call: ActionCallID, _ reply: GuestReply, _ facts: ActionFacts) -> [ActionEffect] {
        guard let sent = pending.removeValue(forKey: call) else { return [] }
        underWay[sent.guest, default: 1] -= 1
        if underWay[sent.guest] == 0 { underWay[sent.guest] = nil }
        var result: ActionOutcome?
        if case .success = reply { result = results[sent.guest]?.popFirst() }
        if results[sent.guest]?.isEmpty == true { results[sent.guest] = nil }
        var effects: [ActionEffect] = [.cancel(call)]
        if !sent.answered {
            effects.append(.answer(call, answer(to: sent, reply: reply, result: result, facts)))
        }
        return effects
    }

    /// The call's deadline fell due before its reply: the operator hears why there is none.
    mutating func deadline(_ call: ActionCallID, _ facts: ActionFacts) -> [ActionEffect] {
        guard let sent = pending[call], !sent.answered else { return [] }
        pending[call]?.answered = true
        return [.answer(call, .failure(overdue(sent, facts)))]
    }

    /// The guest is gone: a result whose reply never came (it died between them) answers nothing.
    mutating func ended(_ id: String) {
        results[id] = nil
    }

    // MARK: Answers

    /// The action and its values, or why the call is refused before it is sent.
    private static func check(
        _ actionName: String, arguments: ActionArguments, of id: String, _ facts: ActionFacts
    ) throws(HostCommandError) -> (Int, GuestAction, [ActionValue]) {
        guard let (index, action) = facts.descriptor.action(named: actionName) else {
            let declared = facts.descriptor.actions.map(\.signature).joined(separator: ", ")
            throw HostCommandError.notFound(
                "\(id) has no action \(actionName) (\(declared.isEmpty ? "it declares none" : "it has \(declared)"))")
        }
        let values = try arguments.values(for: action)
        switch facts.phase {
        case .running: break
        case .launching: throw HostCommandError("\(id) is still launching: actions run once it has launched")
        case .notRunning, .terminating: throw HostCommandError("\(id) is not running")
        }
        guard !facts.stopped else {
            throw HostCommandError(
                "\(id) is suspended, and an action never wakes a guest: resume it first (apphost ctl resume \(id))")
        }
        if action.foreground, facts.appState != .active, facts.appState != .inactive {
            throw HostCommandError(
                "action \(action.name) of \(id) runs only in the foreground, and \(id) is in \(facts.appState)")
        }
        return (index, action, values)
    }

    /// Why a call past its deadline has no answer (F3): it waits behind a callback that has not
    /// returned, or behind one the watchdog stopped the guest in, or it has not returned itself.
    private func overdue(_ sent: Pending, _ facts: ActionFacts) -> HostCommandError {
        let id = sent.guest
        let name = sent.action.name
        let inProcess = facts.inProcess ? "; it still runs it in the host's process (use --isolation process)" : ""
        if facts.calls.isWaiting(sent.ticket), let current = facts.calls.current {
            return HostCommandError(
                "\(id)'s action \(name) never ran: \(id) is still in \(current), which has not returned within "
                    + "\(limit.secondsText), the watchdog's hard limit" + inProcess)
        }
        // Stopped (frozen, or killed with no answer yet) in a callback this one waited behind.
        if let hung = facts.calls.hung(ahead: sent.ticket, since: sent.oldest), hung.ticket < sent.ticket {
            return HostCommandError(
                "\(id)'s action \(name) never ran: the watchdog stopped \(id) while it was in \(hung.callback), "
                    + "past \(limit.secondsText)")
        }
        return HostCommandError(
            "\(id) has not returned from action \(name) within \(limit.secondsText), the watchdog's hard limit"
                + inProcess)
    }

    /// The reply to an action call as its caller reads it, with the result the guest reported.
    private func answer(
        to sent: Pending, reply: GuestReply, result: ActionOutcome?, _ facts: ActionFacts
    ) -> Result<ActionValue?, HostCommandError> {
        let id = sent.guest
        let name = sent.action.name
        switch reply {
        case .success(let status):
            switch result {
            case .returned(let value) where status == APPHOST_OK.rawValue: return .success(value)
            case .broke(let why): return .failure(HostCommandError("\(id)'s action \(name) \(why)"))
            default:
                return .failure(HostCommandError("\(id) could not run action \(name): \(StatusName.of(status))"))
            }
        case .failure(.crashed(let cause)):
            // The watchdog killed it in one callback, and every call waiting behind that one went
            // with it: each caller hears which call hung.
            if facts.lastReason == .watchdog, let hung = facts.calls.hung(ahead: sent.ticket, since: sent.oldest) {
                if hung.ticket == sent.ticket {
                    return .failure(
                        HostCommandError(
                            "\(id) was killed by the watchdog in action \(name): it ran past \(limit.secondsText), "
                                + "the watchdog's hard limit (\(cause))"))
                }
                return .failure(
                    HostCommandError(
                        "\(id)'s action \(name) never ran: the watchdog killed \(id) while it was in "
                            + "\(hung.callback), past \(limit.secondsText)"))
            }
            let what = facts.lastReason == .watchdog ? "was killed by the watchdog" : "crashed"
            return .failure(HostCommandError("\(id) \(what) in action \(name): \(cause)"))
        case .failure(.closed):
            return .failure(HostCommandError("\(id) stopped before action \(name) returned"))
        case .failure(.failed(let why)):
            return .failure(HostCommandError("action \(name) of \(id) failed: \(why)"))
        }
    }
}
