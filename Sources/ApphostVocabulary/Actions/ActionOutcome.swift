import ApphostModel

/// How a guest's action ended, as its runtime reports it before the call's reply (F2).
public enum ActionOutcome: Sendable, Codable, Equatable {
    /// It returned a valid result: nil for an action that returns nothing.
    case returned(ActionValue?)
    /// It returned something its type does not allow (a NULL string, invalid UTF-8, a result too
    /// long), as the runtime says.
    case broke(String)
}
