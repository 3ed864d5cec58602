import ApphostControl
import ApphostHTTP
import ArgumentParser
import Logging

/// `--http` and its tokens (CONTRACT O1): where the HTTP API listens, loopback unless told, who may
/// drive the host through it, and the names it answers to.
struct HTTPOptions: ParsableArguments {
    @Option(
        name: .customLong("http"),
        help: ArgumentHelp(
            "Serve the HTTP API, /metrics and the web app switcher at [ADDRESS:]PORT (a port alone: 127.0.0.1).",
            valueName: "address:port"))
    var binding: String?

    @Option(
        help: ArgumentHelp(
            "A file of mode 600 whose first line is the bearer token HTTP clients must present to drive the host; required for an address other than loopback. Read again on SIGHUP.",
            valueName: "path"))
    var httpTokenFile: String?

    @Option(
        help: ArgumentHelp(
            "A file of mode 600 whose first line is a read-only token: it may list guests, follow events and read /metrics and /v1/version, nothing else. Needs --http-token-file; read again on SIGHUP.",
            valueName: "path"))
    var httpReadTokenFile: String?

    @Option(
        name: .customLong("http-allowed-host"),
        help: ArgumentHelp(
            "A host name requests may name in their Host header besides this host's address and localhost, such as a reverse proxy's public name. Repeat for more.",
            valueName: "name"))
    var allowedHosts: [String] = []

    func validate() throws {
        if let binding {
            do throws(HTTPSetupError) {
                _ = try HTTPBinding(parsing: binding)
            } catch {
                throw ValidationError(error.message)
            }
            return
        }
        if httpTokenFile != nil { throw ValidationError("--http-token-file needs --http.") }
        if httpReadTokenFile != nil { throw ValidationError("--http-read-token-file needs --http.") }
        if !allowedHosts.isEmpty { throw ValidationError("--http-allowed-host needs --http.") }
    }

    /// What the HTTP server is started with, checked before the host starts; nil without `--http`.
    struct Configuration {
        var binding: HTTPBinding
        var tokens: HTTPTokens
        var allowedHosts: [String]
    }

    func configuration() throws -> Configuration? {
        guard let binding else { return nil }
        do throws(HTTPSetupError) {
            let parsed = try HTTPBinding(parsing: binding)
            let tokens = try HTTPTokens(controlFile: httpTokenFile, readFile: httpReadTokenFile)
            try parsed.checkAccess(tokens: tokens)
            for host in allowedHosts where host.isEmpty || host.contains(where: { $0 == "/" || $0 == " " }) {
                throw HTTPSetupError(
                    "--http-allowed-host \"\(host)\": expected a host name, such as apphost.example.com")
            }
            return Configuration(binding: parsed, tokens: tokens, allowedHosts: allowedHosts)
        } catch {
            throw CLIFailure(error)
        }
    }
}
