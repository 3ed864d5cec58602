import ApphostControl
import Foundation
import Hummingbird
import NIOCore

/// Every control verb as a JSON endpoint (CONTRACT O1): `POST /v1/<verb>` with the verb's members
/// as a JSON object, `GET /v1/guests` for `ps` and `GET /v1/host` for `host`. A request becomes the control line
/// `{"command":"<verb>", ...members}` and goes through the one decoder of the control socket
/// (``ControlCommands/decode(line:)``), so verbs, validation and replies are the socket's.
struct CommandRoutes: Sendable {
    let responder: any ControlResponder

    /// The largest body accepted, as the control socket's longest line (`call`'s arguments).
    static let maximumBodyLength = 512 * 1024

    func add(to router: Router<HostRequestContext>) {
        router.get("/v1/guests") { _, _ in await answer(StatusCommand()) }
        router.get("/v1/host") { _, _ in await answer(HostCommand()) }
        // A path with a GET of its own is no longer /v1/:verb to the router: its POST is its own.
        router.post("/v1/host") { request, _ in await post(request, verb: HostCommand.name) }
        router.post("/v1/:verb") { request, context in
            await post(request, verb: context.parameters.get("verb") ?? "")
        }
    }

    /// `POST /v1/<verb>`: the verb with the members of the body.
    private func post(_ request: Request, verb: String) async -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBodyLength)
        } catch is NIOTooManyBytesError {
            return JSONReply.failure(
                "request body over \(Self.maximumBodyLength) bytes", status: .contentTooLarge)
        } catch {
            // A body that ends before its length, or a bad chunk: the client's request is broken.
            return JSONReply.failure("cannot read the request body: \(error)", status: .badRequest)
        }
        return await command(verb: verb, body: Data(buffer: body))
    }

    /// The command a request names: its verb from the path, its members from the body.
    func command(verb: String, body: Data) async -> Response {
        guard ControlCommands.names.contains(verb) else {
            return JSONReply.failure(ControlCommands.unknown(verb).message, status: .notFound)
        }
        let line: Data
        do throws(ControlProtocolError) {
            line = try Self.line(verb: verb, body: body)
        } catch {
            return JSONReply.failure(error.message, status: .badRequest)
        }
        let command: any ControlCommand
        do {
            command = try ControlCommands.decode(line: line)
        } catch {
            return JSONReply.failure(error.message, status: .badRequest)
        }
        return await answer(command)
    }

    func answer(_ command: any ControlCommand) async -> Response {
        JSONReply.response(line: await responder.answer(command))
    }

    /// The control line for `verb` with the members of `body`: an empty body is no members; a
    /// body that names a command must name this one.
    static func line(verb: String, body: Data) throws(ControlProtocolError) -> Data {
        // `verb` is one of the known names, which need no escapes in JSON.
        let verbMember = Data(#"{"command":""#.utf8) + Data(verb.utf8) + Data(#"""#.utf8)
        let whitespace = " \n\r\t".utf8
        let text = body.drop { whitespace.contains($0) }
        if text.isEmpty { return verbMember + Data("}".utf8) }
        // One parse tells an object from anything else, and finds a command it names.
        guard let named = try? JSONDecoder().decode(NamedVerb.self, from: body) else {
            throw ControlProtocolError("malformed request: the body must be one JSON object of the verb's members")
        }
        if let command = named.command {
            guard command == verb else {
                throw ControlProtocolError("the body names the command \"\(command)\" but the path \"\(verb)\"")
            }
            return body
        }
        // `{` then the members: the command goes in front of them, the body's bytes kept as sent.
        let members = text.dropFirst()
        let isEmptyObject = members.allSatisfy { whitespace.contains($0) || $0 == UInt8(ascii: "}") }
        return verbMember + (isEmptyObject ? Data("}".utf8) : Data(",".utf8) + members)
    }

    private struct NamedVerb: Decodable { var command: String? }
}
