import ApphostControl
import Hummingbird

/// `GET /metrics`: the host's metrics in Prometheus' text format (CONTRACT O2), the same
/// exposition as `apphost ctl metrics`, through the same verb.
struct MetricsRoute: Sendable {
    let responder: any ControlResponder

    func add(to router: Router<HostRequestContext>) {
        router.get("/metrics") { _, _ in
            let line = await responder.answer(MetricsCommand())
            guard let reply = try? ControlCoding.decode(ControlReply<MetricsExposition>.self, from: line),
                let exposition = reply.result
            else { return JSONReply.response(line: line) }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: exposition.text)))
        }
    }
}
