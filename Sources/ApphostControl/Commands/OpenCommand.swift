import ApphostVocabulary

/// `{"command":"open","guest":ID}`: open a new primary window of a running guest (S2).
public struct OpenCommand: GuestCommand, Equatable {
    public static let name = "open"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func start(on host: any ControlTarget, id: String, completion: @escaping SaidReply) {
        host.openScene(id) { completion($0.map { "opened a window of \(id): session \($0)" }) }
    }
}
