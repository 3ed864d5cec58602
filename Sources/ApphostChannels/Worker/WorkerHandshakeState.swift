import ApphostLoading
import ApphostModel
import ApphostPolicy
import ApphostVocabulary
import ApphostWire
import CApphost

/// The handshake's conversation, apart from its socket and its process: HELLO, then LOAD answered
/// by LOADED or LOAD_FAILED, then START answered by STARTED, with the guest's own calls on the way
/// once init runs. Each message received goes in; what the handshake is to do comes out
/// (`WorkerHandshake` carries it out). No system call.
struct WorkerHandshakeState {
    enum Step: CustomStringConvertible {
        case hello, load, start

        var description: String {
            switch self {
            case .hello: "the worker's hello"
            case .load: "loading the library"
            case .start: "init"
            }
        }
    }

    /// What the handshake is to do with a message received.
    enum Decision {
        /// The guest's own call during init: forward it, and read on.
        case forward(GuestEvent)
        /// HELLO in this host's protocol version: LOAD is next.
        case hello
        /// LOADED, with an entry that declares a valid guest: START is next.
        case loaded(GuestDescriptor)
        /// STARTED, init succeeded: the channel takes over.
        case started
        /// The guest did not load or init: stop the worker (it unloads and exits), and fail so.
        case stop(LoadError)
        /// Another protocol version, or a message the step does not allow: kill the worker, and
        /// fail so.
        case abandon(LoadError)
    }

    /// The path as the caller gave it, which errors name.
    let path: String
    /// The worker takes a user of its own at LOAD.
    let ownUser: Bool
    private(set) var step = Step.hello
    /// The path sent with LOAD, which dlopen's errors name.
    private var canonicalPath = ""

    init(path: String, ownUser: Bool) {
        self.path = path
        self.ownUser = ownUser
    }

    /// LOAD was sent, for `canonicalPath`.
    mutating func sentLoad(canonicalPath: String) {
        step = .load
        self.canonicalPath = canonicalPath
    }

    /// START was sent.
    mutating func sentStart() {
        step = .start
    }

    func received(_ message: WorkerToHostMessage) -> Decision {
        switch (step, message) {
        case (.hello, .hello(let version, _)):
            guard version == UInt32(APPHOST_WIRE_VERSION) else {
                return .abandon(
                    LoadError(
                        path: path,
                        cause: .workerFailed(
                            "the worker speaks protocol version \(version), this host \(APPHOST_WIRE_VERSION)")))
            }
            return .hello
        case (.load, .loaded(let entry)):
            // CONTRACT X1: what the entry declares, judged as for a guest in the host's process.
            do throws(LoadError) {
                return .loaded(try DescriptorValidator.descriptor(of: entry, path: path))
            } catch {
                return .stop(error)
            }
        case (.load, .loadFailed(.dlopen, let detail)):
            var cause = DlopenFailure.cause(of: detail, loading: canonicalPath)
            if ownUser, case .unreadable(let why) = cause {
                cause = .unreadable(
                    "\(why) (its worker runs as a user of its own: a guest must be readable by other users)")
            }
            return .stop(LoadError(path: path, cause: cause))
        case (.load, .loadFailed(.noEntry, _)):
            return .stop(LoadError(path: path, cause: .missingEntrySymbol))
        case (.start, .report(let event)):
            // Logs, saves, and background frames a thread of its sends once init has returned.
            return .forward(event)
        case (.start, .started(.ok, _)):
            return .started
        case (.start, .started(.initFailed, let status)):
            return .stop(LoadError(path: path, cause: .initFailed(status: status, name: StatusName.of(status))))
        case (.start, .started(.noAppCallbacks, _)):
            return .stop(
                LoadError(
                    path: path,
                    cause: .invalidDescriptor(
                        "query(\"\(APPHOST_GUEST_APP_CALLBACKS_ID)\") returned NULL: every guest must provide app callbacks"
                    )))
        default:
            // Before init the guest has no host interface to send its own calls with.
            return .abandon(unexpected)
        }
    }

    /// The failure of a message the step does not allow.
    var unexpected: LoadError {
        LoadError(path: path, cause: .workerFailed("protocol error during \(step): an unexpected message"))
    }
}
