import ApphostHTTP
import ApphostService
import ApphostSound
import Dispatch
import Foundation

/// Shuts the host down once: on the first signal, or when no guest could launch. Confined to the
/// main queue, where the signal handlers and the launch completion run.
final class HostStopper: @unchecked Sendable {
    private let service: HostService
    private let mixer: HostMixer
    private let output: HostOutput
    private let notifier: ServiceNotifier?
    private let readiness: HostReadiness
    private let guestCount: GuestCountStatus?
    /// The HTTP API, once it listens; it answers until the guests are gone.
    var http: HTTPServer?
    private var stopping = false

    init(
        service: HostService, mixer: HostMixer, output: HostOutput, notifier: ServiceNotifier? = nil,
        readiness: HostReadiness = HostReadiness(), guestCount: GuestCountStatus? = nil
    ) {
        self.guestCount = guestCount
        self.service = service
        self.readiness = readiness
        self.mixer = mixer
        self.output = output
        self.notifier = notifier
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
        readiness.markStopping()
        guestCount?.stopReporting()
        notifier?.stopping(status: "terminating guests")
        service.shutdown { [output, mixer, http] in
            // What is still queued for output goes first, unless nobody reads it; off the main
            // queue, so that a second signal still exits at once meanwhile.
            DispatchQueue.global().async {
                http?.stop()
                // Once the guests are gone: the mix's last periods, and a WAV file's final sizes.
                let failure = mixer.stop()
                if let failure { output.error("audio output: \(failure)") }
                output.flush()
                exit(failure != nil && exitCode == 0 ? 1 : exitCode)
            }
        }
    }
}
