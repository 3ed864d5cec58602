import ApphostCore
import ApphostVocabulary

/// `{"command":"open","guest":ID}`: open a new primary window of a running guest (S2).
public struct OpenCommand: GuestCommand, Equatable {
    public static let name = "open"
    public var guest: String

    public init(guest: String) { self.guest = guest }

    public func start(
        on core: HostCore, id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void
    ) {
        core.openScene(id) { completion($0.map { "opened a window of \(id): session \($0)" }) }
    }
}
