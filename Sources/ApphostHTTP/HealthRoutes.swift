import Hummingbird
import Synchronization

/// Where a host is in its life, for `/readyz`: starting until its guests have launched (one at
/// least; the sessions store opens before), ready while it serves, stopping once shutdown began.
public final class HostReadiness: Sendable {
    public enum State: UInt8, Sendable {
        case starting, ready, stopping
    }

    private let state = Atomic<UInt8>(State.starting.rawValue)

    public init(_ initial: State = .starting) { state.store(initial.rawValue, ordering: .relaxed) }

    public var current: State { State(rawValue: state.load(ordering: .acquiring)) ?? .starting }

    /// The guests have launched. A host that is already stopping stays so.
    public func markReady() {
        _ = state.compareExchange(
            expected: State.starting.rawValue, desired: State.ready.rawValue, ordering: .acquiringAndReleasing)
    }

    public func markStopping() { state.store(State.stopping.rawValue, ordering: .releasing) }
}

/// The probes of a service manager or load balancer, answered without a token (they tell nothing
/// else): `/healthz`, the server answers at all; `/readyz`, 200 once the host is ready, 503 while it
/// starts or stops, so that a balancer sends it nothing then.
struct HealthRoutes: Sendable {
    let readiness: HostReadiness

    func add(to router: Router<HostRequestContext>) {
        router.get("/healthz") { _, _ in Self.status("alive", .ok) }
        router.get("/readyz") { _, _ in
            switch readiness.current {
            case .ready: Self.status("ready", .ok)
            case .starting: Self.status("starting", .serviceUnavailable)
            case .stopping: Self.status("stopping", .serviceUnavailable)
            }
        }
    }

    private static func status(_ word: String, _ status: HTTPResponse.Status) -> Response {
        JSONReply.response(line: #"{"status":"\#(word)"}"#, status: status)
    }
}
