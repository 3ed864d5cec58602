import ApphostVocabulary

/// `{"command":"terminate","guest":ID}`: terminate a guest gracefully (A3).
public struct TerminateCommand: GuestCommand, Equatable {
    public static let name = "terminate"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    /// The answer says what went wrong on the way out (a crash or hang in will_terminate).
    public func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply) {
        host.terminate(id) { completion($0.map { trouble in "\(id) terminated" + (trouble.map { "; \($0)" } ?? "") }) }
    }
}
