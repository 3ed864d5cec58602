import ApphostVocabulary

/// `{"command":"resume","guest":ID}`: let a suspended guest run again, in background.
public struct ResumeCommand: GuestCommand, Equatable {
    public static let name = "resume"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply) {
        host.resume(id) { completion($0.map { "\(id) is running in background" }) }
    }
}
