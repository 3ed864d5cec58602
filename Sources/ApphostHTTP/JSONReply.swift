import ApphostControl
import Hummingbird

/// A control reply line as an HTTP response: the same JSON the control socket answers, with a
/// status a client can branch on (CONTRACT O1).
enum JSONReply {
    /// The reply line the host answered, with its status: 200 for a success; for an error, the
    /// status its code names: 400 invalid, 404 not-found, 409 conflict (refused in the host's
    /// present state), 503 unavailable (shutting down).
    static func response(line: String) -> Response {
        let status: HTTPResponse.Status =
            if ControlReply.succeeded(line) {
                .ok
            } else {
                switch ControlReply.code(of: line) {
                case .invalid?: .badRequest
                case .notFound?: .notFound
                case .unavailable?: .serviceUnavailable
                default: .conflict
                }
            }
        return response(line: line, status: status)
    }

    /// A failure the HTTP layer found before the host was asked: a bad request, a missing token.
    /// Its code is the one its status stands for, none where no code does (401, 403 ...).
    static func failure(_ message: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        let code: ControlErrorCode? =
            switch status {
            case .badRequest, .contentTooLarge, .unsupportedMediaType: .invalid
            case .notFound: .notFound
            case .serviceUnavailable: .unavailable
            default: nil
            }
        return response(
            line: ControlReply.failure(message, code: code).line, status: status,
            headers: headers)
    }

    static func response(line: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n")))
    }
}
