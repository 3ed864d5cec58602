import ApphostControl
import ApphostHost

/// The CLI's side of the control socket: sends a request and turns every failure into one line.
struct HostConnection {
    let dataDirectory: DataDirectory
    private let client: ControlClient

    init(dataDirectory: DataDirectory) throws(CLIFailure) {
        do {
            try dataDirectory.checkSocketPathLength()
        } catch {
            throw CLIFailure(error)
        }
        self.dataDirectory = dataDirectory
        client = ControlClient(socketPath: dataDirectory.socketPath)
    }

    /// Sends `command` and returns its response, or throws the host's one-line error.
    func send<Command: ControlCommand>(_ command: Command) throws(CLIFailure) -> Command.Response {
        try Self.validate(command)
        let line: String
        do {
            line = try client.send(command)
        } catch {
            throw failure(error)
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
        do {
            try client.follow(request) { printer.print(line: $0) }
        } catch {
            throw failure(error)
        }
    }

    private func failure(_ error: ControlClientError) -> CLIFailure {
        switch error {
        case .notListening(let socketPath):
            CLIFailure(
                "no host is running with data dir \(dataDirectory.path) (nothing listens on \(socketPath); "
                    + "start one with apphost launch)")
        case .refused, .failed:
            CLIFailure(error)
        }
    }
}
