import ApphostHTTP
import Logging

/// What SIGHUP does (as nginx, sshd and most daemons do): reads again what can change without a
/// restart, the HTTP API's token files and the log level file, and logs one line for each. What
/// cannot be read keeps its old value and is logged as an error; the host and its guests go on.
struct HostReloader: Sendable {
    let tokens: HTTPTokens?
    let logLevelFile: LogLevelFile?
    let logLevel: SharedLogLevel
    let logger: Logger

    func reload() {
        guard tokens?.isEmpty == false || logLevelFile != nil else {
            logger.notice("SIGHUP: nothing to reload (no --http-token-file, no --log-level-file)")
            return
        }
        for result in tokens?.reload() ?? [] {
            switch result {
            case .success(let line): logger.notice("SIGHUP: \(line)")
            case .failure(let error): logger.error("SIGHUP: \(error.message)")
            }
        }
        guard let logLevelFile else { return }
        do throws(CLIFailure) {
            let level = try logLevelFile.read()
            let old = logLevel.current
            logLevel.current = level
            logger.notice("SIGHUP: log level \(level)\(level == old ? " (unchanged)" : ", was \(old)")")
        } catch {
            logger.error("SIGHUP: kept log level \(logLevel.current): \(error.message)")
        }
    }
}
