import ApphostVocabulary

/// `{"command":"suspend","guest":ID}`: send a guest to background (S3) and stop it (B7).
public struct SuspendCommand: GuestCommand, Equatable {
    public static let name = "suspend"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply) {
        host.suspend(id) { completion($0.map { "\(id) is suspended" }) }
    }
}
