import ApphostControl
import Hummingbird

/// A control reply line as an HTTP response: the same JSON the control socket answers, with a
/// status a client can branch on (CONTRACT O1).
enum JSONReply {
    /// The reply line the host answered, with its status: 200 for a success; for an error 503
    /// while the host shuts down, else 409, the command having been refused in the host's
    /// present state (no such guest, already suspended ...).
    static func response(line: String) -> Response {
        let status: HTTPResponse.Status =
            if ControlReply.succeeded(line) {
                .ok
            } else if line == ControlReply.shuttingDown.line {
                .serviceUnavailable
            } else {
                .conflict
            }
        return response(line: line, status: status)
    }

    /// A failure the HTTP layer found before the host was asked: a bad request, a missing token.
    static func failure(_ message: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        response(line: ControlReply.failure(message).line, status: status, headers: headers)
    }

    static func response(line: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n")))
    }
}
