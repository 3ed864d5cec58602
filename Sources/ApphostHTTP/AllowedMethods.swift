import ApphostControl
import Hummingbird

/// Answers a request whose path exists for other methods with 405 and the methods it has
/// (`Allow`), rather than the router's 404, as HTTP asks (RFC 9110, 15.5.6).
struct AllowedMethods: RequestCheck {
    /// The methods of each path the API serves.
    let methods: [String: [HTTPRequest.Method]]

    init(webPaths: Set<String>) {
        var methods: [String: [HTTPRequest.Method]] = [
            "/v1/guests": [.get], "/v1/events": [.get, .post], "/metrics": [.get], "/v1/version": [.get],
            "/healthz": [.get], "/readyz": [.get],
        ]
        for verb in ControlCommands.names where verb != EventsCommand.name { methods["/v1/\(verb)"] = [.post] }
        methods["/v1/\(HostCommand.name)"] = [.get, .post]
        for path in webPaths { methods[path] = [.get] }
        self.methods = methods
    }

    func refusal(of request: Request) -> Response? {
        guard let allowed = methods[request.uri.path], !allowed.contains(request.method),
            !(request.method == .head && allowed.contains(.get))
        else { return nil }
        let names = allowed.map(\.rawValue).joined(separator: ", ")
        return JSONReply.failure(
            "\(request.uri.path) takes \(names), not \(request.method.rawValue)", status: .methodNotAllowed,
            headers: [.allow: names])
    }
}
