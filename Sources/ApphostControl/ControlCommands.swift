import ApphostModel
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

    /// Decodes `data` as `type`. A member that is missing or null is the verb's "needs" error; a
    /// member of the wrong type is named with what it must be; a member the verb does not read
    /// is refused, so that a misspelt one is not silently ignored.
    private static func decode<Command: ControlCommand>(
        _ type: Command.Type, from data: Data, malformed: ControlProtocolError
    ) throws(ControlProtocolError) -> Command {
        let decoded: Recorded<Command>
        do {
            decoded = try JSONDecoder().decode(Recorded<Command>.self, from: data)
        } catch let error as ControlProtocolError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw Command.needs(key.stringValue)
        } catch DecodingError.valueNotFound(_, let context) where context.codingPath.count == 1 {
            throw Command.needs(context.codingPath[0].stringValue)
        } catch DecodingError.valueNotFound(let expected, let context) {
            throw wrongType(context.codingPath, expected: expected, in: data) ?? malformed
        } catch DecodingError.typeMismatch(let expected, let context) {
            throw wrongType(context.codingPath, expected: expected, in: data) ?? malformed
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            throw ControlProtocolError(
                "\(memberName(context.codingPath)) is not valid: \(context.debugDescription)")
        } catch {
            throw malformed
        }
        let unknown = decoded.given.filter { $0 != "command" && !decoded.read.contains($0) }.sorted()
        if let first = unknown.first {
            let members = decoded.read.sorted().map { "\"\($0)\"" }
            throw ControlProtocolError(
                "\(Command.name) has no member \"\(first)\" ("
                    + (members.isEmpty ? "it takes none" : "its members: \(members.joined(separator: ", "))") + ")")
        }
        return decoded.command
    }

    /// `"volume" must be a number, not a string`: the member at `path`, what its type reads, and
    /// what the request holds there; nil when the request cannot be read again.
    private static func wrongType(_ path: [any CodingKey], expected: Any.Type, in data: Data) -> ControlProtocolError? {
        guard !path.isEmpty, let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            return nil
        }
        var found: JSONValue? = object[path[0].stringValue]
        for key in path.dropFirst() {
            switch found {
            case .array(let values)?:
                found = key.intValue.flatMap { values.indices.contains($0) ? values[$0] : nil }
            case .object(let members)?: found = members[key.stringValue]
            default: found = nil
            }
        }
        guard let found else { return nil }
        return ControlProtocolError("\(memberName(path)) must be \(kind(of: expected)), not \(kind(of: found))")
    }

    /// `"arguments"[1]`, `"volume"`: a member, and the places within it.
    private static func memberName(_ path: [any CodingKey]) -> String {
        "\"\(path[0].stringValue)\""
            + path.dropFirst().map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }

    /// What a Swift type reads from JSON, in words.
    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is Double.Type, is Float.Type: "a number"
        case is any FixedWidthInteger.Type: "an integer"
        default:
            String(describing: type).hasPrefix("Array<") ? "an array" : "an object"
        }
    }

    /// What a JSON value is, in words.
    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .unsigned, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A command decoded through a ``MemberRecorder``, with the members its object has.
    private struct Recorded<Command: Decodable>: Decodable {
        let command: Command
        let read: Set<String>
        let given: [String]

        init(from decoder: any Decoder) throws {
            let recorder = MemberRecorder()
            command = try Command(from: RecordingDecoder(base: decoder, recorder: recorder))
            read = recorder.read
            given = try decoder.container(keyedBy: AnyMember.self).allKeys.map(\.stringValue)
        }
    }

    private struct AnyMember: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// What every request line has.
    private struct Head: Decodable {
        var command: String
    }
}
