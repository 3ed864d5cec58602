import ApphostControl
import ApphostModel
import ApphostVocabulary

/// Background work's test (CONTRACT B1 to B7), on the check's short budget.
enum BackgroundChecks {
    /// B1, B3, B4, B6: in background the guest ends its tasks in time (when its work is done, or
    /// when their expiration handlers run), so that the host suspends it without an overrun; it
    /// comes back when switched to (B7).
    static let tasks = CheckTest(
        id: "background-tasks", rules: ["B1", "B3", "B4", "B6", "B7"],
        summary: "ends its background tasks within the budget and lets itself be suspended, then resumes",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            let id = descriptor.id
            let mark = try LifecycleChecks.home(id, in: host, policy: policy)
            let budget = policy.background.budget
            _ = try host.waitFor("it to be suspended in background", after: mark, within: budget + .seconds(5)) {
                $0.kind == .suspended && $0.guest == id
            }
            if let overrun = host.events(after: mark).first(where: { $0.kind == .overrun && $0.guest == id }) {
                throw CheckFailure(
                    expected: "its tasks ended within its background budget (\(budget))",
                    observed: overrun.untimedLine)
            }
            try LifecycleChecks.alive(id, in: host, after: mark, policy: policy, doing: "its background time")
            try LifecycleChecks.switchBack(id, in: host, policy: policy)
        })
}
