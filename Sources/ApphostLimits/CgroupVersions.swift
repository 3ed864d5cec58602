import Logging

/// The choice between a cgroup v2 controller and its v1 form, which every cgroup way of the
/// limits makes the same: v2 if it can be enabled for the workers, else v1, else none.
enum CgroupVersions {
    /// What `v2` makes, else what `v1` makes; nil when both throw, after logging `otherwise` (what
    /// the host does instead) with why each was not usable.
    static func first<Value>(
        v2: () throws(LimitError) -> Value, v1: () throws(LimitError) -> Value, otherwise: String, logger: Logger
    ) -> Value? {
        var reasons: [String] = []
        func attempt(_ version: String, _ make: () throws(LimitError) -> Value) -> Value? {
            do throws(LimitError) {
                return try make()
            } catch {
                reasons.append("\(version): \(error)")
                return nil
            }
        }
        if let value = attempt("v2", v2) { return value }
        if let value = attempt("v1", v1) { return value }
        logger.info("\(otherwise)", metadata: ["why": "\(reasons.joined(separator: "; "))"])
        return nil
    }
}
