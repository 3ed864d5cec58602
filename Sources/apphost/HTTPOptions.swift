import ApphostControl
import ApphostHTTP
import ArgumentParser
import Logging

/// `--http` and its token (CONTRACT O1): where the HTTP API listens, loopback unless told.
struct HTTPOptions: ParsableArguments {
    @Option(
        name: .customLong("http"),
        help: ArgumentHelp(
            "Serve the HTTP API, /metrics and the web app switcher at [ADDRESS:]PORT (a port alone: 127.0.0.1).",
            valueName: "address:port"))
    var binding: String?

    @Option(
        help: ArgumentHelp(
            "A file of mode 600 whose first line is the bearer token HTTP clients must present; required for an address other than loopback.",
            valueName: "path"))
    var httpTokenFile: String?

    func validate() throws {
        if httpTokenFile != nil, binding == nil { throw ValidationError("--http-token-file needs --http.") }
    }

    /// Where to listen and the token, checked before the host starts; nil without `--http`.
    func configuration() throws -> (binding: HTTPBinding, token: BearerToken?)? {
        guard let binding else { return nil }
        do throws(HTTPSetupError) {
            let parsed = try HTTPBinding(parsing: binding)
            let token = try httpTokenFile.map { path throws(HTTPSetupError) in try BearerToken(file: path) }
            try parsed.checkAccess(token: token)
            return (parsed, token)
        } catch {
            throw CLIFailure(error)
        }
    }
}
