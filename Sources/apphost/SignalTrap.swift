import Dispatch
import Foundation

/// Delivers the signals an operator may send to a handler on the main queue instead of letting
/// them end the process, whose guests would then get no callbacks: SIGINT, SIGTERM and SIGQUIT
/// (stop, as nginx takes SIGQUIT: gracefully), SIGHUP (reload), and SIGUSR1 and SIGUSR2, which mean
/// nothing to apphost but would kill it by default. SIGPIPE is ignored: a reader that goes away
/// must not kill the host and its guests.
final class SignalTrap {
    static let operatorSignals = [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2]
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32] = operatorSignals, handler: @escaping @Sendable (Int32) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        sources = signals.map { number in
            // The default action would end the process before the dispatch source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }
}
