import Foundation
import Hummingbird

/// The web app switcher's files (CONTRACT O1): plain HTML, CSS and JavaScript from this target's
/// resources (Web/), read once at start and served from memory at `/` and `/<name>`.
///
/// Found without `Bundle.module`, which stops the process when the directory is missing: a host
/// without its page still serves its API, and says where it looked (``missingMessage``).
struct WebFiles: Sendable {
    let files: [String: (contentType: String, body: ByteBuffer)]
    /// Where the files were looked for, when no place had them (for a warning at start); nil when
    /// they were found.
    var missingMessage: String? = nil

    static let bundleName = "apphost_ApphostHTTP.resources"

    /// The files of the first of these directories that holds index.html, beside the executable:
    /// `apphost_ApphostHTTP.resources/Web`, where SwiftPM puts the resources in a build tree, then
    /// `../share/apphost/web`, where the Debian package installs them (/usr/bin/apphost,
    /// /usr/share/apphost/web). None when neither has it, with ``missingMessage`` naming both.
    static func load() -> WebFiles {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let binDirectory = executable.deletingLastPathComponent()
        let candidates = [
            binDirectory.appendingPathComponent(bundleName).appendingPathComponent("Web"),
            binDirectory.appendingPathComponent("../share/apphost/web").standardized,
        ]
        guard
            let directory = candidates.first(where: {
                FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path)
            })
        else {
            let tried = candidates.map(\.path).joined(separator: " nor in ")
            return WebFiles(
                files: [:], missingMessage: "the web switcher's files are not installed: no index.html in \(tried)")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var files: [String: (String, ByteBuffer)] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { continue }
            files[name] = (contentType(of: name), ByteBuffer(bytes: data))
        }
        return WebFiles(files: files)
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// The paths served without a token: the page holds no data, it asks the API for it.
    var paths: Set<String> { Set(files.keys.map { "/" + $0 }).union(["/"]) }

    func add(to router: Router<HostRequestContext>) {
        for (name, file) in files {
            let response = { @Sendable (_: Request, _: HostRequestContext) -> Response in
                var headers = HTTPFields()
                headers[.contentType] = file.contentType
                headers[.cacheControl] = "no-cache"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
            }
            router.get(RouterPath(name), use: response)
            if name == "index.html" { router.get("/", use: response) }
        }
        if files["index.html"] == nil {
            let message = missingMessage ?? "the web switcher's files have no index.html"
            router.get("/") { _, _ in JSONReply.failure(message, status: .notFound) }
        }
    }
}
