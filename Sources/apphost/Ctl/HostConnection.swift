import ApphostControl
import ApphostService

/// The CLI's way to a host: the control socket of a data directory, or a host's HTTP API
/// (`--url`), with the same requests, replies and exit statuses (CONTRACT O4). Sends a request
/// and turns every failure into one line.
struct HostConnection {
    private enum Transport {
        case socket(ControlClient, DataDirectory)
        case http(HTTPControlClient)
    }

    private let transport: Transport

    init(dataDirectory: DataDirectory) throws(CLIFailure) {
        do {
            try dataDirectory.checkSocketPathLength()
        } catch {
            throw CLIFailure(error)
        }
        transport = .socket(ControlClient(socketPath: dataDirectory.socketPath), dataDirectory)
    }

    init(remote: HTTPControlClient) { transport = .http(remote) }

    /// Sends `command` and returns its response, or throws the host's one-line error.
    func send<Command: ControlCommand>(_ command: Command) throws(CLIFailure) -> Command.Response {
        try Self.validate(command)
        let line: String
        switch transport {
        case .socket(let client, let dataDirectory):
            do {
                line = try client.send(command)
            } catch {
                throw Self.failure(error, dataDirectory: dataDirectory)
            }
        case .http(let client):
            line = try client.send(verb: Command.name, line: command.line)
        }
        guard let reply = try? ControlCoding.decode(ControlReply<Command.Response>.self, from: line) else {
            // An error reply has no result, so it does not decode as a success of any type.
            if let refusal = try? ControlCoding.decode(ControlReply<ControlMessage>.self, from: line), !refusal.ok {
                throw CLIFailure(refusal: refusal.error ?? "the host refused the request", code: refusal.code)
            }
            throw CLIFailure("the host sent a reply this apphost cannot read: \(line.prefix(200))")
        }
        guard reply.ok, let result = reply.result else {
            throw CLIFailure(refusal: reply.error ?? "the host refused the request", code: reply.code)
        }
        return result
    }

    /// Reads `command`'s request line as the host will, with the one decoder of the control
    /// protocol: what the verb's rules refuse is refused here with the host's own line (and
    /// HTTP's), exit 64, before any host is asked.
    static func validate(_ command: some ControlCommand) throws(CLIFailure) {
        do {
            _ = try ControlCommands.decode(line: Array(command.line.utf8))
        } catch {
            throw CLIFailure(error.message, exitCode: CLIFailure.invalidExitCode)
        }
    }

    /// Prints the events `request` asks for until the host closes the connection: first those the
    /// host still holds after its position, if it has one.
    func follow(_ request: EventsCommand, with printer: EventPrinter) throws(CLIFailure) {
        switch transport {
        case .socket(let client, let dataDirectory):
            do {
                try client.follow(request) { printer.print(line: $0) }
            } catch {
                throw Self.failure(error, dataDirectory: dataDirectory)
            }
        case .http(let client):
            try client.follow(request) { printer.print(line: $0) }
        }
    }

    private static func failure(_ error: ControlClientError, dataDirectory: DataDirectory) -> CLIFailure {
        switch error {
        case .notListening(let socketPath):
            CLIFailure(
                "no host is running with data dir \(dataDirectory.path) (nothing listens on \(socketPath); "
                    + "start one with apphost launch)", exitCode: CLIFailure.notRunningExitCode)
        case .refused, .failed:
            CLIFailure(error)
        }
    }
}
