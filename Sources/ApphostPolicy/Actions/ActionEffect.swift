import ApphostModel
import ApphostVocabulary

/// One operator's call of a guest's action, from the moment `ActionCalls.call` takes it until it
/// is answered and its reply has come. Unique within the part, so that a late reply or deadline
/// names one call for good.
struct ActionCallID: Hashable, Sendable {
    let serial: UInt64
}

/// What the action calls part says should happen; its runner carries the effects out in order
/// (`ActionRunner`).
enum ActionEffect: Equatable, Sendable {
    /// Send this call of the action to the guest; hand its reply back to `ActionCalls.replied`.
    case deliver(ActionCallID, GuestCall)
    /// Complete the operator's call with this: once, whichever of reply and deadline comes first.
    case answer(ActionCallID, Result<ActionValue?, HostCommandError>)
    /// Arm the call's deadline on the clock, `after` from now; hand it back to
    /// `ActionCalls.deadline` when it falls due.
    case schedule(ActionCallID, after: Duration)
    /// Disarm the call's deadline: it must not fall due.
    case cancel(ActionCallID)
}

/// What the action calls part needs to know of a guest from the core at the moment of an input:
/// where it is in its life (`life`), what it declares, and where an action of it would wait.
struct ActionFacts: CarriesGuestLife, Sendable {
    var descriptor: GuestDescriptor
    var life: GuestLife
    var appState: AppState
    /// It runs in the host's process: nothing can stop it when it hangs.
    var inProcess: Bool
    /// Its callbacks in flight and the watchdog's view of them (B5): where an action waits.
    var calls: CallWatch
    var lastReason: TransitionReason
}

extension ActionFacts {
    /// What `guest` is now.
    init(_ guest: GuestRecord) {
        self.init(
            descriptor: guest.descriptor, life: GuestLife(guest), appState: guest.appState,
            inProcess: guest.channel?.processID == nil, calls: guest.calls, lastReason: guest.lastReason)
    }
}
