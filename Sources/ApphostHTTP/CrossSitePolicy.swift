import Foundation
import Hummingbird

/// What a web page the operator happens to visit could make the browser send to the host, refused
/// before any token is looked at (CONTRACT O1, X4):
///
/// - a cross-site "simple" request, which the browser sends without asking first (a form post, a
///   `fetch` with `text/plain`): every POST must be `application/json`, which a browser sends
///   across sites only after a preflight this server never grants;
/// - a request whose `Origin` is another site's: browsers send `Origin` with every cross-site POST
///   and fetch, so a foreign one is a page acting on the operator's behalf;
/// - DNS rebinding, where a page's own name is made to resolve to the host's address so that the
///   browser takes the host for the same origin: such a request names the page's host in `Host`,
///   which must name this host's address, `localhost`, or a name the operator allowed.
///
/// A value: decides from a request's method and headers alone, tested without a server.
package struct CrossSitePolicy: Sendable, Equatable {
    /// Lower-case host names (without port) that `Host` may name.
    package let allowedHosts: Set<String>
    /// Bound to every address (0.0.0.0 or ::): any IP literal in `Host` names this host, and an IP
    /// literal cannot be rebound, since rebinding needs a name.
    package let acceptsAnyAddress: Bool

    /// `binding`'s address, the loopback names, and `extraHosts` (`--http-allowed-host`).
    package init(binding: HTTPBinding, extraHosts: [String] = []) {
        var hosts: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if !binding.isWildcard { hosts.insert(binding.host.lowercased()) }
        for host in extraHosts { hosts.insert(host.lowercased()) }
        allowedHosts = hosts
        acceptsAnyAddress = binding.isWildcard
    }

    /// Why a request is refused, for a one-line error.
    package struct Refusal: Sendable, Equatable {
        package var status: HTTPResponse.Status
        package var message: String
    }

    /// Nil when the request may go on. `host` is the request's `Host` (its authority), `origin` its
    /// header. What it sends is checked apart (``refusal(method:contentType:)``), once the path is
    /// known to take the method.
    package func refusal(host: String?, origin: String?) -> Refusal? {
        // HTTP/1.1 requires Host (RFC 9112, 3.2), and a request without it could be meant for
        // any site.
        guard let host else {
            return Refusal(status: .badRequest, message: "the request has no Host header, which HTTP/1.1 requires")
        }
        if !accepts(hostHeader: host) {
            return Refusal(
                status: .forbidden,
                message:
                    "the Host header names \(host), which is not this host: start it with --http-allowed-host \(Self.hostName(ofAuthority: host)) to serve that name"
            )
        }
        if let origin, !Self.isSameOrigin(origin, host: host) {
            return Refusal(
                status: .forbidden, message: "cross-site request refused: Origin \(origin) is not this host's")
        }
        return nil
    }

    /// Nil for a request whose body a browser could not send across sites without a preflight.
    package func refusal(method: HTTPRequest.Method, contentType: String?) -> Refusal? {
        if method == .post, !Self.isJSON(contentType) {
            return Refusal(
                status: .unsupportedMediaType,
                message: "a POST needs Content-Type: application/json (got \(contentType ?? "none"))")
        }
        return nil
    }

    package func accepts(hostHeader: String) -> Bool {
        let name = Self.hostName(ofAuthority: hostHeader).lowercased()
        if allowedHosts.contains(name) { return true }
        return acceptsAnyAddress && Self.isIPLiteral(name)
    }

    /// `example.com` of `example.com:8080`, `::1` of `[::1]:8080`.
    package static func hostName(ofAuthority authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }

    package static func isIPLiteral(_ name: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    /// Whether `origin` (`scheme://host[:port]`) names the authority the request was sent to. A
    /// port left out is the scheme's default on both sides, so that the page behind a reverse
    /// proxy (`https://apphost.example.com`, `Host: apphost.example.com`) is its own origin, while a
    /// page on another port of the same machine is not.
    package static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let separator = origin.range(of: "://") else { return false }
        let scheme = origin[..<separator.lowerBound].lowercased()
        let defaultPort = scheme == "https" ? "443" : scheme == "http" ? "80" : nil
        guard let defaultPort else { return false }
        let originAuthority = String(origin[separator.upperBound...])
        guard !originAuthority.contains("/") else { return false }
        return normalized(originAuthority, defaultPort: defaultPort) == normalized(host, defaultPort: defaultPort)
    }

    private static func normalized(_ authority: String, defaultPort: String) -> String {
        let name = hostName(ofAuthority: authority).lowercased()
        let rest = authority.hasPrefix("[") ? authority.drop { $0 != "]" }.dropFirst() : Substring(authority)
        let port = rest.lastIndex(of: ":").map { String(rest[rest.index(after: $0)...]) } ?? defaultPort
        return "\(name) \(port)"
    }

    /// `application/json`, in any case, with or without parameters (`; charset=utf-8`).
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}

/// Applies the ``CrossSitePolicy`` to every request: its `Host` and `Origin` before the token is
/// checked, or (`checksContent`) a POST's content type once the path is known to take a POST.
struct CrossSiteGuard: RequestCheck {
    let policy: CrossSitePolicy
    let checksContent: Bool

    func refusal(of request: Request) -> Response? {
        let refusal =
            checksContent
            ? policy.refusal(method: request.method, contentType: request.headers[.contentType])
            : policy.refusal(host: request.head.authority, origin: request.headers[.origin])
        return refusal.map { JSONReply.failure($0.message, status: $0.status) }
    }
}
