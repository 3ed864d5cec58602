import ApphostHost
import Dispatch
import Foundation

/// Shuts the host down once: on the first signal, or when no guest could launch. Confined to the
/// main queue, where the signal handlers and the launch completion run.
final class HostStopper: @unchecked Sendable {
    private let service: HostService
    private let output: HostOutput
    private var stopping = false

    init(service: HostService, output: HostOutput) {
        self.service = service
        self.output = output
    }

    func signalled(_ number: Int32) {
        // A second signal means the operator will not wait for the guests: leave now, as a shell
        // expects of a process interrupted by that signal.
        guard !stopping else { _exit(128 + number) }
        stop(exitCode: 0)
    }

    func stop(exitCode: Int32) {
        guard !stopping else { return }
        stopping = true
        service.shutdown { [output] in
            // What is still queued for output goes first, unless nobody reads it; off the main
            // queue, so that a second signal still exits at once meanwhile.
            DispatchQueue.global().async {
                output.flush()
                exit(exitCode)
            }
        }
    }
}
