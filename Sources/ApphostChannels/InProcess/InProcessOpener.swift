import ApphostGuestRuntime
import ApphostLoading
import ApphostVocabulary
import Dispatch

/// Opens guests inside the host process, on the C guest runtime: no isolation (a crashing guest
/// takes the host down), and at most one instance of each guest, since a library loaded twice
/// shares its globals.
public struct InProcessOpener: GuestOpener {
    /// How many of a guest's events (logs, saves, requests) may wait for the host queue: a guest
    /// thread that logs in a tight loop would otherwise queue work for the host without bound, and
    /// the host would answer nothing else (CONTRACT X2). Past it, the guest's thread waits until
    /// the host has caught up, as a worker's does when its socket is full.
    static let eventBacklogLimit = 1024

    /// The host program's name and version, as `apphost_host_t` tells guests.
    public var hostName: String
    public var hostVersion: String

    public init(hostName: String = "apphost", hostVersion: String = "0.1.0") {
        self.hostName = hostName
        self.hostVersion = hostVersion
    }

    public func open(
        path: String,
        guestsDirectory: String,
        hostQueue: any HostExecutor,
        onEvent: @escaping @Sendable (GuestEvent) -> Void,
        completion: @escaping @Sendable (Result<OpenedGuest, LoadError>) -> Void
    ) {
        let registry = LoadedGuestRegistry.shared
        let backlog = DispatchSemaphore(value: Self.eventBacklogLimit)
        let forward: @Sendable (GuestEvent) -> Void = { event in
            backlog.wait()
            hostQueue.execute {
                onEvent(event)
                backlog.signal()
            }
        }
        // dlopen runs the guest's library constructors: never on the caller's thread.
        InProcessGuest.threads.async { [hostName, hostVersion] in
            let guest: InProcessGuest
            do throws(LoadError) {
                guest = try Self.load(
                    path: path, guestsDirectory: guestsDirectory, hostName: hostName, hostVersion: hostVersion,
                    registry: registry, forward: forward)
            } catch {
                return hostQueue.execute { completion(.failure(error)) }
            }
            let id = guest.descriptor.id
            hostQueue.execute { onEvent(.identified(guestID: id)) }
            guest.mainQueue.async {
                do throws(LoadError) {
                    try guest.start()
                } catch {
                    registry.release(id: id)
                    return hostQueue.execute { completion(.failure(error)) }
                }
                let channel = InProcessChannel(
                    guest: guest, hostQueue: hostQueue, onUnloaded: { registry.release(id: id) })
                hostQueue.execute {
                    completion(.success(OpenedGuest(descriptor: guest.descriptor, channel: channel)))
                }
            }
        }
    }

    /// Loads and validates the guest (CONTRACT X1), creates its data directory
    /// `guestsDirectory/<id>` (mode 0700) and registers it; refuses one that is already loaded.
    /// Nothing of the guest has run but its library constructors.
    private static func load(
        path: String, guestsDirectory: String, hostName: String, hostVersion: String, registry: LoadedGuestRegistry,
        forward: @escaping @Sendable (GuestEvent) -> Void
    ) throws(LoadError) -> InProcessGuest {
        // Before dlopen, which would hand back the loaded instance itself.
        if let loaded = registry.id(loadedFrom: GuestLibrary.canonicalize(path)) {
            throw LoadError(path: path, cause: .alreadyLoaded(loaded))
        }
        let library = try GuestLibrary.load(path: path)
        let directory: String
        do {
            directory = try GuestDataDirectory.create(in: guestsDirectory, id: library.descriptor.id)
        } catch {
            ahr_stop(library.runtime)
            throw LoadError(path: path, cause: .dataDirectoryUnavailable(error.description))
        }
        if let loaded = registry.reserve(id: library.descriptor.id, canonicalPath: library.canonicalPath) {
            ahr_stop(library.runtime)
            throw LoadError(path: path, cause: .alreadyLoaded(loaded))
        }
        return InProcessGuest(
            library: library, path: path, dataDirectory: directory, hostName: hostName, hostVersion: hostVersion,
            onEvent: forward)
    }
}
