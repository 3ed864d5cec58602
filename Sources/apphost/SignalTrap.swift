import Dispatch
import Foundation

/// Delivers SIGINT and SIGTERM to a handler on the main queue instead of killing the process.
/// SIGPIPE is ignored: a reader that goes away must not kill the host and its guests.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
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
