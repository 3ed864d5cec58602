import Foundation

/// The verbs of the control protocol, and the one decoder of its request lines.
public enum ControlCommands {
    /// Every verb, in the order `ctl --help` and error messages list them.
    public static let all: [any ControlCommand.Type] = [
        StatusCommand.self, SwitchCommand.self, OpenCommand.self, HomeCommand.self, AlertCommand.self,
        TerminateCommand.self, SuspendCommand.self, ResumeCommand.self, EventsCommand.self,
        MemoryWarningCommand.self, ActionCommand.self, CloseCommand.self, DismissCommand.self, LayoutCommand.self,
        AudioSilenceCommand.self, AudioVolumeCommand.self, AudioRouteCommand.self, AudioInterruptCommand.self,
        AudioResetCommand.self, CallCommand.self, MetricsCommand.self, HostCommand.self,
    ]

    /// The wire names of the verbs, for error messages.
    public static let names = all.map { $0.name }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The one-line error for a verb no command has.
    public static func unknown(_ name: String) -> ControlProtocolError {
        ControlProtocolError("unknown command \"\(name)\" (known: \(names.joined(separator: ", ")))")
    }

    /// Parses and validates one request line; the error says in one line what is wrong with it.
    public static func decode(line: some Collection<UInt8>) throws(ControlProtocolError) -> any ControlCommand {
        let data = Data(line)
        let malformed = ControlProtocolError(
            "malformed request: expected one JSON object with a \"command\" string, such as {\"command\":\"ps\"}")
        guard let head = try? JSONDecoder().decode(Head.self, from: data) else { throw malformed }
        guard let type = byName[head.command] else { throw unknown(head.command) }
        let command = try decode(type, from: data, malformed: malformed)
        try command.validate()
        return command
    }

    /// Decodes `data` as `type`. A member that is missing or null is the verb's "needs" error;
    /// any other failure (a member of the wrong type) is a malformed request.
    private static func decode<Command: ControlCommand>(
        _ type: Command.Type, from data: Data, malformed: ControlProtocolError
    ) throws(ControlProtocolError) -> Command {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as ControlProtocolError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw Command.needs(key.stringValue)
        } catch DecodingError.valueNotFound(_, let context) where context.codingPath.count == 1 {
            throw Command.needs(context.codingPath[0].stringValue)
        } catch {
            throw malformed
        }
    }

    /// What every request line has.
    private struct Head: Decodable {
        var command: String
    }
}
