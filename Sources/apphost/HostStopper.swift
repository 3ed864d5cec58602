import ApphostHost
import Dispatch
import Foundation

/// Shuts the host down once: on the first signal, or when no guest could launch. Confined to the
/// main queue, where the signal handlers and the launch completion run.
final class HostStopper: @unchecked Sendable {
    private let service: HostService
    private var stopping = false

    init(service: HostService) { self.service = service }

    func signalled(_ number: Int32) {
        // A second signal means the operator will not wait for the guests: leave now, as a shell
        // expects of a process interrupted by that signal.
        guard !stopping else { _exit(128 + number) }
        stop(exitCode: 0)
    }

    func stop(exitCode: Int32) {
        guard !stopping else { return }
        stopping = true
        service.shutdown {
            DispatchQueue.main.async { exit(exitCode) }
        }
    }
}
