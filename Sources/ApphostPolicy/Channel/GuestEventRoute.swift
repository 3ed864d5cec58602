import ApphostVocabulary

/// Routes what a guest sends to its record; the guest's id is known only once it has loaded.
final class GuestEventRoute: @unchecked Sendable {
    /// The part of the policy a guest's report concerns, which `HostCore.handle` hands it to.
    enum Concern: Equatable {
        /// The route itself, the event stream, the store, or the guest's end: the core's own.
        case core
        /// `BackgroundScheduler` (B1 to B9).
        case background
        /// The scenes' parts: `SceneRequests`, `SceneReports`, `SessionClosing` (S7, S9 to S13, N1 to N3).
        case scenes
        /// `AudioSessions` (C1 to C15, X7).
        case audio
        /// `ActionCalls` (F3).
        case actions
    }

    // Written and read on the host queue only.
    let path: String
    var id: String?
    /// The id the opener read from the descriptor, before the launch (and `id`) is settled: it
    /// names what the guest sends from init.
    var identifiedAs: String?
    /// The channel of the launch this route serves: a late word from an earlier one is ignored.
    weak var channel: (any GuestChannel)?
    /// Background and audio requests that arrived before the channel opened (a guest thread may
    /// make them right after init), handled once it has.
    var early: [GuestEvent] = []
    init(path: String) { self.path = path }

    /// Which part `event` concerns: a new guest event names its part here.
    static func concern(of event: GuestEvent) -> Concern {
        switch event {
        case .identified, .log, .died, .saveSceneState: return .core
        case .taskBegan, .taskEnded, .timerScheduled, .timerCancelled, .workSubmitted: return .background
        case .sceneRequested, .sessionActivationRequested, .loadingProgress, .modalPresented, .modalDismissed,
            .notificationPosted, .sessionCloseRequested, .sceneTitleChanged:
            return .scenes
        case .audioConfigured, .audioActivationRequested, .audioDeactivated, .audioRendering, .audioGainChanged,
            .audioOutputOverridden, .audioThread:
            return .audio
        case .actionFinished: return .actions
        }
    }
}
