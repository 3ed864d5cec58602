import ApphostControl
import ApphostModel
import ApphostVocabulary

/// The scenes' tests (CONTRACT S1 to S13).
enum SceneChecks {
    /// S12: a guest saves its scene's state when the scene enters background, so that a kill
    /// there (the host's memory pressure, a crash, SIGKILL) loses nothing: saving it only in
    /// will_terminate is too late. Skipped for a guest that saves no state at all.
    static let stateBeforeBackground = CheckTest(
        id: "scene-state", rules: ["S12", "S3"],
        summary: "saves its scene state when the scene enters background, not only on its way out",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws in
            let id = descriptor.id
            let mark = try LifecycleChecks.home(id, in: host, policy: policy)
            // Until it is suspended, or its budget ends: all the time it has to save in background.
            _ = try? host.waitFor(
                "it to be suspended", after: mark, within: policy.background.budget + .seconds(1)
            ) { $0.kind == .suspended && $0.guest == id }
            try LifecycleChecks.alive(id, in: host, after: mark, policy: policy, doing: "going to background")
            if host.events(after: mark).contains(where: { savedState($0, of: id) }) { return }
            // Nothing saved in background: is there state at all? Its way out says, from the
            // foreground (a suspended guest is terminated without will_terminate).
            try LifecycleChecks.switchBack(id, in: host, policy: policy)
            let out = host.mark
            if case .success = try host.send(TerminateCommand(guest: id), within: policy.terminateLimit) {
                _ = try? host.waitFor("its termination", after: out, within: policy.terminateLimit) {
                    $0.kind == .terminated && $0.guest == id
                }
            }
            guard host.events(after: out).contains(where: { savedState($0, of: id) }) else {
                throw CheckSkip(reason: "guest saves no scene state")
            }
            throw CheckFailure(
                expected: "its scene state saved when the scene entered background (S12)",
                observed: "it saved only on its way out, in will_terminate: a kill in background would lose it")
        })

    /// A `state-saved` event of the guest `id` that stored state, not only its session.
    static func savedState(_ event: HostEvent, of id: String) -> Bool {
        event.kind == .stateSaved && event.guest == id && event.message?.hasSuffix("no state yet") == false
    }
}
