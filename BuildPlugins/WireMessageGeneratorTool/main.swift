// Reads apphost_messages.h's table (Sources/ApphostMessages/include) and writes the Swift side of
// its calls and reports: `wire-message-generator TABLE vocabulary|channels|tests OUTPUT`.
// `vocabulary` is ApphostVocabulary's GuestEventArea and each report's area (`GuestEvent.area`);
// `channels` is ApphostChannels' mapping (GuestCall to ahr_call, ahr_report to GuestEvent) and
// the table as Swift data; `tests` is the tests' mapping the other way (GuestEvent to ahr_report,
// ahr_call to GuestCall). Run by the build plugin WireMessageGenerator, only when the table
// changes. The standard library only, so that it builds in seconds.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One value of a Swift case: `A(label, converter, members...)`, or `S(...)` when the converter
/// lends pointers only while a closure runs.
struct Argument {
    var label: String
    var converter: String
    var members: [String]
    var scoped: Bool
}

/// One call or report, `X(number, NAME, name, AREA, swiftCase, fields, arguments)`. `member` is
/// its member of the union in ahr_call or ahr_report, which holds the members its fields declare;
/// `area` the part that takes it (a call's in the runtime, a report's in the host's policy).
struct Message {
    var number: Int
    var name: String
    var member: String
    var area: String
    var swiftCase: String
    var arguments: [Argument]
}

func fail(_ message: String) -> Never {
    let line = "wire-message-generator: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func readFile(_ path: String) -> String {
    guard let file = fopen(path, "r") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String) {
    guard let file = fopen(path, "w") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    fputs(text, file)
}

/// The text without C comments, with each macro's continued lines joined.
func logicalLines(_ text: String) -> [String] {
    var plain = ""
    var rest = Substring(text)
    while let start = rest.range(of: "/*") {
        plain += rest[..<start.lowerBound]
        guard let end = rest[start.upperBound...].range(of: "*/") else { fail("an unterminated comment") }
        rest = rest[end.upperBound...]
    }
    plain += rest
    return plain.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map(String.init)
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    func range(of target: String) -> Range<Substring.Index>? {
        let needle = Array(target.utf8)
        var index = startIndex
        while index < endIndex {
            if self[index...].utf8.starts(with: needle) {
                return index..<self.utf8.index(index, offsetBy: needle.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}

/// The calls of `name(...)` at the top level of `text`, each as its arguments split at the
/// top-level commas, trimmed.
func invocations(of name: String, in text: Substring) -> [[String]] {
    var result: [[String]] = []
    let characters = Array(text)
    var index = 0
    while index < characters.count {
        let isStart =
            characters[index...].starts(with: name + "(")
            && (index == 0
                || !(characters[index - 1].isLetter || characters[index - 1].isNumber
                    || characters[index - 1] == "_"))
        guard isStart else {
            index += 1
            continue
        }
        index += name.count + 1
        var depth = 0
        var current = ""
        var arguments: [String] = []
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == "(" {
                depth += 1
            } else if character == ")" {
                if depth == 0 { break }
                depth -= 1
            } else if character == "," && depth == 0 {
                arguments.append(current.trimmed)
                current = ""
                continue
            }
            current.append(character)
        }
        arguments.append(current.trimmed)
        result.append(arguments)
    }
    return result
}

extension String {
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// The body of the macro `#define <prefix>`, from the first line that defines it.
func definition(_ prefix: String, in lines: [String]) -> Substring {
    guard let line = lines.first(where: { $0.trimmed.hasPrefix(prefix) }) else { fail("no \(prefix)") }
    return Substring(line.trimmed).dropFirst(prefix.count)
}

/// The messages of the macro `#define <macro>(X, F, A, S)`, each with an AREA; with `areas`, a
/// report's AREA must be one of them.
func messages(of macro: String, in lines: [String], areas: [String]? = nil) -> [Message] {
    let body = definition("#define \(macro)(X, F, A, S)", in: lines)
    return invocations(of: "X", in: body).map { entry in
        guard entry.count == 7, let number = Int(entry[0]) else {
            fail("an entry of \(macro) is not X(number, NAME, name, AREA, swiftCase, fields, arguments): \(entry)")
        }
        if let areas, !areas.contains(entry[3]) {
            fail("\(entry[1]) names the area \"\(entry[3])\", not one of \(areas.joined(separator: " "))")
        }
        var arguments: [(Int, Argument)] = []
        for kind in ["A", "S"] {
            for (offset, value) in positionedInvocations(of: kind, in: entry[6]) {
                guard value.count >= 2 else { fail("\(kind)(\(value)) of \(entry[1]) has no converter") }
                arguments.append(
                    (
                        offset,
                        Argument(
                            label: value[0], converter: value[1], members: Array(value.dropFirst(2)),
                            scoped: kind == "S")
                    ))
            }
        }
        return Message(
            number: number, name: entry[1], member: entry[2], area: entry[3], swiftCase: entry[4],
            arguments: arguments.sorted { $0.0 < $1.0 }.map(\.1))
    }
}

/// The parts of the host's policy that take reports, `#define APPHOST_MESSAGES_REPORT_AREAS(X)
/// X(CORE) ...`, as the table spells them.
func reportAreas(in lines: [String]) -> [String] {
    let areas = invocations(of: "X", in: definition("#define APPHOST_MESSAGES_REPORT_AREAS(X)", in: lines)).map {
        $0[0]
    }
    for area in areas where area.isEmpty || !area.allSatisfy({ ("A"..."Z").contains($0) || $0 == "_" }) {
        fail("the area \"\(area)\" of APPHOST_MESSAGES_REPORT_AREAS is not a NAME")
    }
    guard !areas.isEmpty else { fail("APPHOST_MESSAGES_REPORT_AREAS names no area") }
    return areas
}

/// A table's NAME as Swift spells a case: SCENE_TITLE is sceneTitle.
func swiftName(_ name: String) -> String {
    let words = name.lowercased().split(separator: "_")
    return words.enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
}

/// `invocations`, each with where it starts, so that A and S keep the table's order.
func positionedInvocations(of name: String, in text: String) -> [(Int, [String])] {
    var result: [(Int, [String])] = []
    let characters = Array(text)
    var index = 0
    while index < characters.count {
        if characters[index...].starts(with: name + "(")
            && (index == 0 || characters[index - 1] == " " || characters[index - 1] == ")")
        {
            let invocation = invocations(of: name, in: Substring(String(characters[index...])))
            result.append((index, invocation[0]))
        }
        index += 1
    }
    return result
}

// MARK: - Swift

let header = """
    // Generated by WireMessageGenerator (BuildPlugins/) from apphost_messages.h: edit the table, not
    // this file.

    """

func label(_ argument: Argument) -> String {
    argument.label == "_" ? "" : "\(argument.label): "
}

/// The Swift expression that reads `argument` from `source` (the message's own member of an
/// ahr_call or ahr_report: `call.scene_size`).
func read(_ argument: Argument, from source: String) -> String {
    "WireRead.\(argument.converter)(\(argument.members.map { "\(source).\($0)" }.joined(separator: ", ")))"
}

/// `return try .case(reads...)`, or `return .case` for a case without values.
func construction(_ message: Message, from value: String) -> String {
    guard !message.arguments.isEmpty else { return "return .\(message.swiftCase)" }
    let values = message.arguments.map { label($0) + read($0, from: "\(value).\(message.member)") }
    return "return try .\(message.swiftCase)(\(values.joined(separator: ", ")))"
}

func pattern(_ message: Message) -> String {
    guard !message.arguments.isEmpty else { return ".\(message.swiftCase)" }
    let names = message.arguments.enumerated().map { index, argument in
        argument.members.isEmpty ? "_" : "let a\(index)"
    }
    return ".\(message.swiftCase)(\(names.joined(separator: ", ")))"
}

/// Statements that write argument `index` into `target`'s members from `value`.
func assignments(_ argument: Argument, _ value: String, into target: String, indent: String) -> [String] {
    if argument.members.count == 1 {
        return ["\(indent)\(target).\(argument.members[0]) = \(value)"]
    }
    var lines = ["\(indent)let v = \(value)"]
    for (index, member) in argument.members.enumerated() {
        lines.append("\(indent)\(target).\(member) = v.\(index)")
    }
    return ["\(indent)do {"] + lines.map { "    " + $0 } + ["\(indent)}"]
}

/// The body of a generated function that builds each of `messages` from the C struct `value`:
/// one `case` per kind (`kinds` and the message's name), whose constructor the table gives; an
/// unknown kind or a value a converter refuses throws.
func builder(_ signature: String, value: String, kinds: String, _ messages: [Message]) -> String {
    var out = """
            \(signature) {
                do {
                    switch \(value).kind {

        """
    for message in messages {
        out += "            case \(kinds)\(message.name):\n"
        out += "                \(construction(message, from: value))\n"
    }
    out += """
                    default:
                        throw WireFieldError.unknownKind
                    }
                } catch let error as WireFieldError {
                    throw error
                } catch {
                    throw WireFieldError.invalid
                }
            }

        """
    return out
}

func channels(calls: [Message], reports: [Message]) -> String {
    var out = header
    out += """
        import ApphostGuestRuntime
        import ApphostModel
        import ApphostVocabulary
        import CApphost
        import Foundation

        extension RuntimeReport {
            /// `report` as a `GuestEvent`, each value through the converter the table names.
            /// Throws `WireFieldError.unknownKind` for a kind the table does not have, and
            /// `.invalid` for a value its converter refuses.

        """
    out += builder(
        "static func tableEvent(of report: ahr_report) throws(WireFieldError) -> GuestEvent", value: "report",
        kinds: "AHR_REPORT_", reports)
    out += """
        }

        extension RuntimeCall {
            /// Sets `call`'s kind and members for `guestCall`, each value through the converter the
            /// table names, and calls `body` with it while the pointers it lends live.
            static func withTableCall<Result>(
                _ guestCall: GuestCall, _ call: inout ahr_call, _ body: (UnsafePointer<ahr_call>) -> Result
            ) -> Result {
                switch guestCall {

        """
    for message in calls {
        out += "        case \(pattern(message)):\n"
        out += "            call.kind = AHR_CALL_\(message.name)\n"
        var indent = "            "
        for (index, argument) in message.arguments.enumerated() where !argument.scoped && !argument.members.isEmpty {
            out +=
                assignments(
                    argument, "WireWrite.\(argument.converter)(a\(index))", into: "call.\(message.member)",
                    indent: indent
                )
                .joined(separator: "\n") + "\n"
        }
        var closings: [String] = []
        for (index, argument) in message.arguments.enumerated() where argument.scoped {
            let names = argument.members.indices.map { "m\($0)" }
            out += "\(indent)return WireWrite.\(argument.converter)(a\(index)) { \(names.joined(separator: ", ")) in\n"
            for (member, name) in zip(argument.members, names) {
                out += "\(indent)    call.\(message.member).\(member) = \(name)\n"
            }
            closings.append("\(indent)}")
            indent += "    "
        }
        out += "\(indent)return body(&call)\n"
        for closing in closings.reversed() {
            out += closing + "\n"
        }
    }
    out += """
                }
            }
        }

        /// The calls and reports the generator read, for the test that checks them against the C
        /// table (apphost_messages[]).
        enum WireMessageTable {

        """
    out += listLiteral("calls", calls) + listLiteral("reports", reports)
    out += """

            /// Each call's and report's own C type (a zero value and its size), with the members its
            /// Swift mapping reads and writes, for the test that checks the two name the same members.

        """
    out += typesLiteral("call", calls) + typesLiteral("report", reports)
    out += """
        }

        """
    return out
}

/// `static let <name>`: each message's number, name and Swift case, for `WireMessageTable`.
func listLiteral(_ name: String, _ messages: [Message]) -> String {
    var out = "    static let \(name): [(number: UInt8, name: String, swiftCase: String)] = [\n"
    for message in messages {
        out += "        (\(message.number), \"\(message.name)\", \"\(message.swiftCase)\"),\n"
    }
    return out + "    ]\n"
}

/// `static var <kind>Types`: each message's own C type, `ahr_<kind>_<member>`, as a zero value
/// and its size, with the members its Swift mapping names.
func typesLiteral(_ kind: String, _ messages: [Message]) -> String {
    var out = "    static var \(kind)Types: [(name: String, value: Any, members: [String], size: Int)] {\n        [\n"
    for message in messages {
        let type = "ahr_\(kind)_\(message.member)"
        out += "            (\"\(message.name)\", \(type)(), \(membersLiteral(message)), MemoryLayout<\(type)>.size),\n"
    }
    return out + "        ]\n    }\n"
}

/// The members every argument of `message` names, as a Swift array literal.
func membersLiteral(_ message: Message) -> String {
    "[" + message.arguments.flatMap(\.members).map { "\"\($0)\"" }.joined(separator: ", ") + "]"
}

func tests(calls: [Message], reports: [Message]) -> String {
    var out = header
    out += """
        import ApphostGuestRuntime
        import ApphostModel
        import ApphostVocabulary
        import CApphost
        import Foundation

        @testable import ApphostChannels

        extension WorkerToHostMessage {
            /// `event` as the runtime reports it (`RuntimeReport` the other way), its texts and
            /// bytes copied into `arena`.
            static func tableReport(of event: GuestEvent, _ arena: WireArena) -> ahr_report {
                var report = ahr_report()
                switch event {

        """
    for message in reports {
        out += "        case \(pattern(message)):\n"
        out += "            report.kind = AHR_REPORT_\(message.name)\n"
        for (index, argument) in message.arguments.enumerated() where !argument.members.isEmpty {
            out +=
                assignments(
                    argument, "WireWrite.\(argument.converter)(a\(index), arena)", into: "report.\(message.member)",
                    indent: "            "
                ).joined(separator: "\n") + "\n"
        }
    }
    out += """
                default:
                    preconditionFailure("\\(event) is the channel's own, never a worker's frame")
                }
                return report
            }
        }

        extension HostToWorkerMessage {
            /// `call` as the host made it (`RuntimeCall` the other way); throws for a call the
            /// tests cannot rebuild (an action's declaration, an audio stream's descriptors).

        """
    out += builder(
        "static func tableCall(of call: ahr_call) throws(WireFieldError) -> GuestCall", value: "call",
        kinds: "AHR_CALL_", calls)
    out += """
        }

        """
    return out
}

/// GuestEventArea, a case for each of the table's report areas, and `GuestEvent.area`: a report's
/// from the table, the channel's own events' from `channelArea`, written beside them.
func vocabulary(areas: [String], reports: [Message]) -> String {
    var out = header
    out += """

        /// The part of the host's policy that takes a guest's event, which `HostCore.handle` hands it
        /// to: the table's APPHOST_MESSAGES_REPORT_AREAS (apphost_messages.h says what each is).
        public enum GuestEventArea: Sendable, CaseIterable {

        """
    for area in areas {
        out += "    /// \(area) in apphost_messages.h.\n"
        out += "    case \(swiftName(area))\n"
    }
    out += """
        }

        extension GuestEvent {
            /// The part of the host's policy that takes this event: a report's AREA in the table, and
            /// for an event the channel makes itself, `channelArea`.
            public var area: GuestEventArea {
                switch self {

        """
    for message in reports {
        out += "        case .\(message.swiftCase): return .\(swiftName(message.area))\n"
    }
    out += """
                default: return channelArea
                }
            }
        }

        """
    return out
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["vocabulary", "channels", "tests"].contains(arguments[2]) else {
    fail("usage: wire-message-generator TABLE vocabulary|channels|tests OUTPUT")
}
let lines = logicalLines(readFile(arguments[1]))
let calls = messages(of: "APPHOST_MESSAGES_CALLS", in: lines)
let areas = reportAreas(in: lines)
let reports = messages(of: "APPHOST_MESSAGES_REPORTS", in: lines, areas: areas)
switch arguments[2] {
case "vocabulary": writeFile(arguments[3], vocabulary(areas: areas, reports: reports))
case "channels": writeFile(arguments[3], channels(calls: calls, reports: reports))
default: writeFile(arguments[3], tests(calls: calls, reports: reports))
}
