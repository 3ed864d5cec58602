import ApphostModel
import ApphostVocabulary
import Dispatch
import Foundation

/// Opens fake guests by "path" (the guest id), or fails with a given load error.
public final class FakeOpener: GuestOpener, @unchecked Sendable {
    // Configured by the test before use; read on the host queue.
    public var guests: [String: FakeGuest] = [:]
    public let log = CallLog()

    @discardableResult
    public func add(_ id: String, capabilities: GuestDescriptor.Capabilities = [.multipleScenes]) -> FakeGuest {
        let guest = FakeGuest(id: id, capabilities: capabilities)
        guests[id] = guest
        return guest
    }

    public func open(
        path: String, guestsDirectory: String, hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        guard let guest = guests[path] else {
            return hostQueue.execute { completion(.failure(LoadError(path: path, cause: .notELF))) }
        }
        guest.opens += 1
        guest.onEvent = onEvent
        for event in guest.eventsAfterInit { onEvent(event) }
        let channel = FakeChannel(guest: guest, log: log, queue: hostQueue)
        hostQueue.execute { completion(.success(OpenedGuest(descriptor: guest.descriptor, channel: channel))) }
    }
}
