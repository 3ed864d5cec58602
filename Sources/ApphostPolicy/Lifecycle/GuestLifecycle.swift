import ApphostModel
import ApphostVocabulary
import Foundation

/// A guest's life as the host runs it (CONTRACT A1 to A3, B5, B7, B8, X2): its phase, whether
/// its code may run (`Suspension`) and why it is suspended, and how its end went. It writes
/// those of a guest's record, and nothing else does; the rest of a step is what the other parts
/// should hear, in order, returned as values (`LifecycleEffect`) for the core to carry out. It
/// never calls a channel or the clock: the time comes in with the input.
enum GuestLifecycle {
    // MARK: Launch (A1, A2)

    /// A1: the guest is opened on `channel`: it runs, with no scene yet, until its launch
    /// callback returns.
    static func launching(_ guest: GuestRecord, on channel: any GuestChannel) {
        guest.channel = channel
        guest.phase = .launching
    }

    /// Why did_finish_launching's `reply` fails the launch; nil when it succeeded.
    static func launchFailure(_ reply: GuestReply) -> String? {
        switch reply {
        case .success(0): return nil
        case .success(let status): return "did_finish_launching returned \(status) (\(StatusName.of(status)))"
        case .failure(let failure): return "did_finish_launching: \(failure)"
        }
    }

    /// A2: the launch callback succeeded; false when the guest stopped launching meanwhile.
    static func launched(_ guest: GuestRecord) -> Bool {
        guard guest.phase == .launching else { return false }
        guest.phase = .running
        return true
    }

    // MARK: Suspension (B5, B7, B8)

    /// B7: a suspension (or resumption) of the guest begins: calls for it wait from now.
    static func changing(_ guest: GuestRecord, suspending: Bool) {
        guest.suspension = suspending ? .suspending : .resuming
    }

    /// B7: the channel answered the change `changing` began, at `now`. Suspended: no budget
    /// runs. Resumed: in background it gets a fresh budget, then what waited for it (B8). A
    /// suspension that failed leaves it running, with what is left of its budget and what waited.
    static func settled(
        _ guest: GuestRecord, suspending: Bool, _ result: Result<Void, ChannelFailure>, reason: TransitionReason,
        at now: Date
    ) -> [LifecycleEffect] {
        // Back to the state before the change, then, if it succeeded, the new one.
        guest.suspension = suspending ? .running : .suspended
        if case .failure(let failure) = result {
            let message = "cannot \(suspending ? "suspend" : "resume"): \(failure)"
            return [.record(.error, reason: reason, message: message)] + (suspending ? calledOff(guest) : [])
        }
        let before = guest.appState
        guest.suspension = suspending ? .suspended : .running
        guard !suspending else {
            guest.suspendedFor = SuspensionCause(since: now, reason: reason)
            return [
                .budget(.suspended), .appStateChanged(from: before, reason: reason),
                .record(.suspended, reason: reason),
            ]
        }
        guest.suspendedFor = nil
        return [
            .appStateChanged(from: before, reason: reason), .record(.resumed, reason: reason), .budget(.resumed),
        ] + (guest.appState == .background ? [.budget(.enteredBackground)] : []) + [.releaseHeld]
    }

    /// A suspension did not happen (a task begun meanwhile, B6, or the channel failed): the guest
    /// gets back what is left of its budget, which ran on meanwhile, and what waited for it.
    static func calledOff(_ guest: GuestRecord) -> [LifecycleEffect] {
        guest.suspension = .running
        return [.budget(.stayedRunning), .releaseHeld]
    }

    /// B5: the watchdog froze the guest, stuck in a callback (`overdue` says which), at `now`: it
    /// is suspended where it stands, its scenes out of the layout, for someone to look at.
    static func frozen(_ guest: GuestRecord, overdue: String, at now: Date) -> [LifecycleEffect] {
        let before = guest.appState
        guest.suspension = .suspended
        guest.suspendedFor = SuspensionCause(since: now, reason: .watchdog)
        return [
            .hide(.watchdog), .budget(.suspended), .appStateChanged(from: before, reason: .watchdog),
            .record(.suspended, reason: .watchdog, message: "frozen: \(overdue)"),
        ]
    }

    // MARK: The end (A3, X2)

    /// A3: the host terminates the guest; how its way out goes is said when it is unloaded.
    static func terminating(_ guest: GuestRecord) {
        guest.phase = .terminating
        guest.terminationTrouble = nil
    }

    /// X2: the guest died, `cause` saying of what, in `callback` if it was in one; it had a scene
    /// in the foreground (`inForeground`), where a restart brings it back. One that dies or hangs
    /// on its way out is terminated all the same (A3): its termination says where and of what
    /// (after will_terminate answered: in deinit).
    static func crashed(_ guest: GuestRecord, cause: String, during callback: String?, inForeground: Bool)
        -> [LifecycleEffect]
    {
        guard guest.phase != .terminating else {
            if guest.terminationTrouble == nil {
                guest.terminationTrouble = "it failed in \(callback ?? "deinit"): \(cause)"
            }
            return []
        }
        let killed = guest.calls.killedByWatchdog
        let reason: TransitionReason = killed ? .watchdog : .crash
        let what =
            "\(killed ? "killed by the watchdog" : "crashed") \(callback.map { "in \($0)" } ?? "outside any callback")"
        return [
            .record(.error, reason: reason, message: "\(what): \(cause)"), .died(reason, inForeground: inForeground),
        ]
    }

    /// A3: the guest's channel is closed, however it ended: it no longer runs, nothing waits for
    /// it, every part forgets its run and its scenes are unattached and out of the layout. Returns
    /// how its way out went, if it went wrong, for its termination to say.
    static func ended(_ guest: GuestRecord, reason: TransitionReason) -> (effects: [LifecycleEffect], trouble: String?)
    {
        let before = guest.appState
        let trouble = guest.terminationTrouble
        guest.channel = nil
        guest.suspension = .running
        guest.suspendedFor = nil
        guest.held = HeldDeliveries()
        guest.terminationTrouble = nil
        guest.phase = .notRunning
        let effects: [LifecycleEffect] = [
            .forgetRun, .unattachScenes(reason), .appStateChanged(from: before, reason: reason), .hide(reason),
        ]
        return (effects + (trouble.map { [.record(.error, reason: reason, message: $0)] } ?? []), trouble)
    }
}

/// What `GuestLifecycle` says should happen to the guest a step concerned; the core carries the
/// effects out in order (`HostCore.perform(_:for:)`).
enum LifecycleEffect: Equatable, Sendable {
    /// What the background scheduler hears of the guest (B2, B7).
    enum Budget: Equatable, Sendable {
        /// Suspended: no budget runs (`BackgroundScheduler.suspended`).
        case suspended
        /// Not suspended after all: what is left of its budget (`.stayedRunning`).
        case stayedRunning
        /// Runs again (`.resumed`).
        case resumed
        /// Runs again in background: a fresh budget (`HostCore.enteredBackground`).
        case enteredBackground
    }

    /// Record this event of the guest's.
    case record(HostEvent.Kind, reason: TransitionReason, message: String? = nil)
    /// Its app state changed from `from`: the event stream and its audio session hear it.
    case appStateChanged(from: AppState, reason: TransitionReason)
    /// Its scenes leave the layout (S3).
    case hide(TransitionReason)
    case budget(Budget)
    /// B8: deliver what waited for it while it was stopped, in order (`HostCore.deliverHeld`).
    case releaseHeld
    /// Its run is over: each part forgets what it kept of it (its budget and timers, its audio
    /// session, scene requests, actions' results, callbacks in flight, confirmations of saves).
    case forgetRun
    /// Its connected scenes become unattached (A3); their sessions stay.
    case unattachScenes(TransitionReason)
    /// X2: it died: unloaded for `reason`, then the restart policy hears of it (`Restarter`).
    case died(TransitionReason, inForeground: Bool)
}
