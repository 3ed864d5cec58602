import ApphostModel
import ApphostVocabulary
import Dispatch
import Foundation

/// One call a fake guest received, in the global order all fake guests share.
public struct ReceivedCall: Equatable, CustomStringConvertible {
    public var guest: String
    public var message: GuestMessage
    public var description: String {
        let detail: String =
            switch message.call {
            case .expireTask(let id), .fireTimer(let id), .runWork(let id): "#\(id)"
            case .backgroundTime(let time): "=" + (time.map { "\($0)" } ?? "unlimited")
            case .sceneSize(let scene, let size): "@\(scene)=\(size.width)x\(size.height)/\(size.sizeClass)"
            case .didDiscard(let session): "#" + session.prefix(8)
            case .notificationLimit(let count, let window): "=\(count)/\(window)"
            case .saveStatus(let scene, let failed): "@\(scene)=\(failed ? "failed" : "works")"
            case .saveConfirmation(let id, let stored): "#\(id)=\(stored ? "stored" : "failed")"
            case .audioSetup(_, let route): "=\(route)"
            case .audioActivationFinished(let request, let refusal): "#\(request)=\(refusal?.rawValue ?? "activated")"
            case .audioInterruptionBegan(let reason): "=\(reason)"
            case .audioInterruptionEnded(let reason, let shouldResume): "=\(reason)" + (shouldResume ? "/resume" : "")
            case .audioRouteChanged(let reason, let previous, let current): "=\(reason):\(previous)->\(current)"
            case .secondaryAudioHint(let silence): silence ? "=silence" : "=resume"
            default: message.call.scene.map { "@\($0)" } ?? ""
            }
        return "\(guest):\(message.call.callbackName)" + detail
    }
}

/// A scripted guest behind a fake channel: it records every call and answers on the host queue,
/// as a real channel does, with the status its script gives.
public final class FakeGuest: @unchecked Sendable {
    // Touched only on the host queue (through the channel) or by the test while the queue is idle.
    public var descriptor: GuestDescriptor
    public var launchStatus: Int32 = 0
    /// What it answers an audio stream: 0, or APPHOST_ERROR_UNSUPPORTED (4) as a guest without
    /// render does.
    public var streamStatus: Int32 = 0
    /// A callback name whose delivery "crashes" the guest, as a dead worker would.
    public var crashOn: String?
    public var opens = 0
    public var closes = 0
    public var suspensions = 0
    public var resumptions = 0
    /// Makes the channel refuse to suspend, as a freezer that fails would.
    public var freezeFails = false
    /// What forceStop was asked to do, in order ("kill", "freeze").
    public var forceStops: [String] = []
    /// The CPU time its audio thread has used, as its channel reads it (nil: unreadable), and the
    /// threads the host demoted (issue 34, point 9).
    public var audioThreadCPUTime: Duration?
    public var demotedThreads: [Int32] = []
    /// Makes forceStop fail, as an in-process channel does.
    public var unstoppable = false
    /// Answers should_dismiss_modal with "keep it" (N3).
    public var keepsModals = false
    /// Keeps replies back, as a guest busy in a callback would.
    public var holdReplies = false
    public var heldReplies: [() -> Void] = []
    public var onEvent: (@Sendable (GuestEvent) -> Void)?
    /// Sent by a guest thread right after init, before the channel is handed over.
    public var eventsAfterInit: [GuestEvent] = []
    /// The activation of the last user action it got (S9), as its runtime would keep it.
    public var lastActivation: ActivationToken = 0
    /// How each of its actions ends, by name, reported before the call's reply as its runtime
    /// does (F2); an action not named here returns nothing.
    public var actionOutcomes: [String: ActionOutcome] = [:]

    /// A fake declares several scenes unless a test says otherwise (S13).
    public init(id: String, capabilities: GuestDescriptor.Capabilities = [.multipleScenes]) {
        descriptor = GuestDescriptor(
            id: id, name: id.components(separatedBy: ".").last ?? id, version: "1.0", capabilities: capabilities)
    }

    /// Sends a guest-to-host event as the guest's runtime would.
    public func emit(_ event: GuestEvent) { onEvent?(event) }
}

/// The shared log of calls, in the order the guests received them.
public final class CallLog: @unchecked Sendable {
    // Appended to on the host queue; read by the test after `settle`.
    /// The calls that run guest code (callbacks, expiration handlers, timers, async work), sizes
    /// aside.
    public var calls: [ReceivedCall] = []
    /// The sizes scenes were told (did_change_size, S11).
    public var sizes: [ReceivedCall] = []
    /// Every message in order, with the ones that only inform the runtime (background time).
    public var messages: [ReceivedCall] = []
    public func sizeNames(_ guest: String? = nil) -> [String] {
        sizes.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
    public func names(_ guest: String? = nil) -> [String] {
        calls.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
    /// Every message to `guest`, background-time updates included.
    public func allNames(_ guest: String? = nil) -> [String] {
        messages.filter { guest == nil || $0.guest == guest }.map(\.description)
    }
}
