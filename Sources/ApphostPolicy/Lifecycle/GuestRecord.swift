import ApphostModel
import ApphostVocabulary
import Foundation

/// One scene session of a guest and its current connection.
struct SceneRecord {
    var sessionID: String
    var role: SceneRole
    /// The handle of the current connection; nil while unattached.
    var handle: SceneHandle?
    var state: SceneState = .unattached
    /// What the session last saved (S12); survives disconnects and relaunches, even when it
    /// could not be stored.
    var savedState: Data?
    /// X5: the size of the last state the store has for good (what a restarted host restores),
    /// and why the last save could not be stored, until one is; nil when it was.
    var storedBytes: Int?
    var saveFailure: String?
    /// The session is in the store; false when the store could not take it when it was made.
    var stored = true
    /// The guest's runtime was told that this connection's last save failed (`saveStatus`).
    var saveFailureTold = false
    /// When it last went to background (host uptime): the host disconnects the oldest first (S6).
    var backgroundSince: Duration = .zero
    /// Its size where the layout last showed it (S11), and the size its connection was told.
    var size: SceneSize?
    var sizeSent: SceneSize?
}

/// What the host core knows of one guest.
final class GuestRecord: @unchecked Sendable {
    // Confined to the host queue, like HostCore, which alone touches it.
    let id: String
    var path: String
    var descriptor: GuestDescriptor
    var channel: (any GuestChannel)?
    var phase: GuestPhase = .notRunning
    /// Whether the host lets its code run (B7), and which change of that is under way.
    var suspension = Suspension.running
    /// Why and since when it is suspended, for operators; nil while it runs.
    var suspendedFor: SuspensionCause?
    /// What waits for it while it is stopped, beside its audio and background work (B8).
    var held = HeldDeliveries()
    /// The callbacks sent and not yet answered, and the watchdog's view of them (B5).
    var calls = CallWatch()
    /// Its restarts under the restart policy (X2).
    var restartHistory = RestartHistory()
    /// While it is terminated: how it failed on its way out (crashed or hung in will_terminate
    /// or deinit), for the termination to say.
    var terminationTrouble: String?
    var scenes: [SceneRecord] = []
    /// X5 (ABI 1.7): the confirmations its saves asked for, until its runtime is told them.
    var saveConfirmations = SaveConfirmations()
    var lastReason: TransitionReason = .requested
    var lastTransition: Date

    init(descriptor: GuestDescriptor, path: String, now: Date) {
        id = descriptor.id
        self.descriptor = descriptor
        self.path = path
        lastTransition = now
    }

    /// CONTRACT A1: derived from the scenes while the guest runs, and background from the moment
    /// its launch callback may run (no scene is connected yet).
    var appState: AppState {
        switch phase {
        case .notRunning: return .notRunning
        case .launching, .running, .terminating:
            if suspended { return .suspended }
            if scenes.contains(where: { $0.state == .foregroundActive }) { return .active }
            if scenes.contains(where: { $0.state == .foregroundInactive }) { return .inactive }
            return .background
        }
    }

    /// Stopped by the host (B7), or being resumed: no code of it runs until it is running again.
    var suspended: Bool { suspension == .suspended || suspension == .resuming }

    /// A suspension or resumption is under way; further ones are refused until it settles.
    var changingSuspension: Bool { suspension == .suspending || suspension == .resuming }

    /// Suspended, or being suspended or resumed: no call reaches it until it runs (B7, B8).
    var stopped: Bool { suspension != .running }

    /// S13: it may have a scene more only if it declares several.
    var mayOpenScene: Bool { descriptor.capabilities.contains(.multipleScenes) || scenes.isEmpty }

    /// Why a guest that declares one scene gets no other (S13).
    static func singleScene(_ id: String) -> String {
        "\(id) has one scene: it does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES"
    }

    func sceneIndex(session: String) -> Int? {
        scenes.firstIndex { $0.sessionID == session }
    }

    func sceneIndex(handle: SceneHandle) -> Int? {
        scenes.firstIndex { $0.handle == handle }
    }
}

/// Whether the host lets a running guest's code run (B7): one state, so that no mix of flags
/// can say two things at once.
enum Suspension: Equatable {
    /// Its code runs.
    case running
    /// A suspension is under way: calls for it wait as for a suspended guest.
    case suspending
    /// Stopped: no code of it runs until it is resumed.
    case suspended
    /// A resumption is under way; calls still wait until the channel confirms it.
    case resuming
}

/// Why and since when a guest is suspended (B7), for operators.
struct SuspensionCause {
    var since: Date
    var reason: TransitionReason
}
