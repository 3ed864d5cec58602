import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation

/// The app lifecycle's tests (CONTRACT A1 to A5).
enum LifecycleChecks {
    /// A1, A2: the guest loads, launches and becomes active, and lives on.
    static let launch = CheckTest(
        id: "launch", rules: ["A1", "A2"], summary: "launches into the foreground and stays running",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            try alive(descriptor.id, in: host, after: 0, policy: policy, doing: "launching")
        })

    /// A2, S3: home sends it to background, switching brings it back, each without a death.
    static let background = CheckTest(
        id: "background", rules: ["A2", "S3", "S2"],
        summary: "goes to background at home and comes back to the foreground when switched to",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            let mark = try home(descriptor.id, in: host, policy: policy)
            try alive(descriptor.id, in: host, after: mark, policy: policy, doing: "going to background")
            try switchBack(descriptor.id, in: host, policy: policy)
        })

    /// Sends the user home and waits until the guest `id` is in background; returns the mark from
    /// before, from which what followed counts.
    static func home(_ id: String, in host: CheckHost, policy: CheckPolicy) throws(CheckFailure) -> Int {
        let mark = host.mark
        _ = try host.send(HomeCommand(), within: policy.launchLimit)
        _ = try host.waitFor("its app state to become background", after: mark, within: policy.launchLimit) {
            $0.kind == .appState && $0.guest == id && $0.to == AppState.background.description
        }
        return mark
    }

    /// Switches to the guest `id` and waits until it is active and alive again.
    static func switchBack(_ id: String, in host: CheckHost, policy: CheckPolicy) throws(CheckFailure) {
        let back = host.mark
        if case .failure(let error) = try host.send(SwitchCommand(guest: id), within: policy.launchLimit) {
            throw CheckFailure(expected: "switching to it to succeed", observed: error.description)
        }
        _ = try host.waitFor("its app state to become active again", after: back, within: policy.launchLimit) {
            $0.kind == .appState && $0.guest == id && $0.to == AppState.active.description
        }
        try alive(id, in: host, after: back, policy: policy, doing: "coming back to the foreground")
    }

    /// A3: told to terminate, it runs will_terminate and deinit and goes in time, without a crash
    /// or a hang on the way out.
    static let terminate = CheckTest(
        id: "terminate", rules: ["A3"], summary: "terminates in time when asked, without crashing or hanging",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            let id = descriptor.id
            let mark = host.mark
            switch try host.send(TerminateCommand(guest: id), within: policy.terminateLimit) {
            case .failure(let error):
                throw CheckFailure(expected: "terminate to succeed", observed: error.description)
            case .success(let said) where said.message.contains(";"):
                // "<id> terminated; it failed in will_terminate: ..." (TerminateCommand).
                throw CheckFailure(
                    expected: "it to terminate cleanly",
                    observed: String(said.message.drop { $0 != ";" }.dropFirst(2)))
            case .success:
                break
            }
            _ = try host.waitFor("its termination", after: mark, within: policy.terminateLimit) {
                $0.kind == .terminated && $0.guest == id
            }
            if let death = host.death(of: id, after: mark) {
                throw CheckFailure(expected: "it to terminate cleanly", observed: death.untimedLine)
            }
        })

    /// Throws when the guest `id` died since `mark`, or does within the policy's settling time.
    static func alive(
        _ id: String, in host: CheckHost, after mark: Int, policy: CheckPolicy, doing what: String
    ) throws(CheckFailure) {
        let deadline = ContinuousClock.now + policy.settle
        repeat {
            if let death = host.death(of: id, after: mark) {
                throw CheckFailure(expected: "it to keep running after \(what)", observed: death.untimedLine)
            }
            Thread.sleep(forTimeInterval: 0.005)
        } while ContinuousClock.now < deadline
    }
}
