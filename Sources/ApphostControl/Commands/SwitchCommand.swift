import ApphostVocabulary

/// `{"command":"switch","guest":ID}`: bring a guest to the foreground (S3, S5), relaunching it
/// if needed.
public struct SwitchCommand: GuestCommand, Equatable {
    public static let name = "switch"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply) {
        host.switchTo(id) { completion($0.map { "\(id) is in the foreground" }) }
    }
}
