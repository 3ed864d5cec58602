import Foundation
import XCTest

/// Every `apphost` command the docs show exists, and so does every flag on it. The shell blocks
/// (```sh, ```bash, ```shell, ```console) of the documents below are read line by line; a command
/// that runs `apphost` (as `apphost`, `.build/debug/apphost`, `.build/release/apphost` or
/// `/usr/bin/apphost`, after `sudo` or environment assignments, in a pipeline or a `$(...)`) must
/// name a subcommand path that exists, and each of its `--flag`s must be in that subcommand's
/// `--help`, which must exit 0. A failure names the document and line.
///
/// No contract rule: this checks the docs against the CLI, not the host against the contract.
final class DocumentedCommandsTests: XCTestCase {
    static let documents = ["README.md", "docs/operating.md", "docs/decisions.md", "sdk/README.md"]

    /// Flags ArgumentParser gives the root command without listing them in its help; each takes a
    /// value. The test runs `apphost --generate-completion-script bash` when a document uses it.
    static let hiddenRootFlags: Set<String> = ["--generate-completion-script"]

    func testEveryDocumentedCommandNamesASubcommandAndOnlyItsFlags() throws {
        var helps = HelpCache()
        var failures: [String] = []
        var checked = 0
        for document in Self.documents {
            let url = TestGuests.packageRoot.appendingPathComponent(document)
            let text = try String(contentsOf: url, encoding: .utf8)
            for command in DocumentedCommand.all(in: text) {
                checked += 1
                let place = "\(document):\(command.line)"
                failures += try check(command.arguments, at: place, helps: &helps)
            }
        }
        if helps.usesHiddenRootFlag {
            let result = try runApphost(["--generate-completion-script", "bash"])
            if result.status != 0 {
                failures.append("apphost --generate-completion-script bash exits \(result.status)")
            }
        }
        // The parser must find what the docs show: far fewer would mean it broke, not the docs.
        XCTAssertGreaterThan(checked, 40, "apphost commands found in \(Self.documents)")
        XCTAssertTrue(
            failures.isEmpty, "documented commands that apphost does not have:\n" + failures.joined(separator: "\n"))
    }

    /// The parser on a made-up document: what it takes as commands, and what it leaves.
    func testTheParserFindsCommandsWhereAShellWouldRunThem() {
        let text = """
            ```sh
            apphost ctl ps --json          # a comment --not-a-flag
            sudo APPHOST_DATA_DIR=/srv .build/debug/apphost ctl --data-dir /srv switch x | grep y
            echo "$(apphost ctl call g a 1)" && journalctl -u apphost -f
            apphost launch [--http [address:]port] \\
                guest.so
            ```

            ```console
            $ /usr/bin/apphost inspect --launch g.so
            apphost output, not a command
            ```

            ```text
            apphost launch --ignored
            ```
            """
        let commands = DocumentedCommand.all(in: text)
        XCTAssertEqual(commands.map(\.line), [2, 3, 4, 5, 10])
        XCTAssertEqual(
            commands.map(\.arguments),
            [
                ["ctl", "ps", "--json"], ["ctl", "--data-dir", "/srv", "switch", "x"], ["ctl", "call", "g", "a", "1"],
                ["launch", "[--http", "[address:]port]", "guest.so"], ["inspect", "--launch", "g.so"],
            ])
    }

    /// The failures of one command line: an unknown subcommand, or flags its help does not list.
    private func check(_ arguments: [String], at place: String, helps: inout HelpCache) throws -> [String] {
        var path: [String] = []
        var help = try helps.help(for: path)
        var flags: [(name: String, path: [String])] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            if let failure = help.failure { return ["\(place): \(failure)"] }
            // Synopsis brackets: `[--json]`, `[--isolation process|none]`.
            let token = arguments[index].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            index += 1
            if token.hasPrefix("-") && token.count > 1 && Double(token) == nil {
                let name = String(token.prefix { $0 != "=" && $0 != "|" })
                flags.append((name, path))
                let hidden = path.isEmpty && Self.hiddenRootFlags.contains(name)
                if (hidden || help.takesValue(name)) && !token.contains("=") { index += 1 }
            } else if !help.subcommands.isEmpty && !token.isEmpty {
                guard help.subcommands.contains(token) else {
                    let command = (["apphost"] + path).joined(separator: " ")
                    return ["\(place): `\(command)` has no subcommand `\(token)`"]
                }
                path.append(token)
                help = try helps.help(for: path)
            }
        }
        if let failure = help.failure { return ["\(place): \(failure)"] }
        var failures: [String] = []
        for flag in flags {
            // A flag before a subcommand belongs to the command it follows (`ctl --data-dir D ps`).
            let before = try helps.help(for: flag.path)
            if help.has(flag.name) || before.has(flag.name) { continue }
            if flag.path.isEmpty && Self.hiddenRootFlags.contains(flag.name) {
                helps.usesHiddenRootFlag = true
                continue
            }
            let command = (["apphost"] + path).joined(separator: " ")
            failures.append("\(place): unknown flag \(flag.name) for `\(command)` (not in `\(command) --help`)")
        }
        return failures
    }
}

/// `apphost <path> --help`, run once per path.
private struct HelpCache {
    private var helps: [[String]: Help] = [:]
    var usesHiddenRootFlag = false

    mutating func help(for path: [String]) throws -> Help {
        if let help = helps[path] { return help }
        let result = try runApphost(path + ["--help"])
        let command = (["apphost"] + path + ["--help"]).joined(separator: " ")
        let help =
            result.status == 0
            ? Help(lines: result.stdout) : Help(failure: "`\(command)` exits \(result.status): \(result.stderr)")
        helps[path] = help
        return help
    }
}

/// What a command's `--help` lists: its options (and whether each takes a value) and its
/// subcommands.
private struct Help {
    var options: [String: Bool] = [:]
    var subcommands: Set<String> = []
    var failure: String?

    init(failure: String) { self.failure = failure }

    init(lines: [String]) {
        var inSubcommands = false
        for line in lines {
            if line.hasSuffix(":") && !line.hasPrefix(" ") {
                inSubcommands = line == "SUBCOMMANDS:"
                continue
            }
            if inSubcommands {
                // "  name  abstract" or "  name (default)  abstract"; continuations are indented further.
                if line.hasPrefix("  ") && !line.hasPrefix("   "),
                    let name = line.dropFirst(2).split(separator: " ").first, name.first?.isLowercase == true
                {
                    subcommands.insert(String(name))
                }
                continue
            }
            // "  -h, --help", "  --data-dir <dir>   The host's ...", "  --json".
            guard line.hasPrefix("  -") else { continue }
            let words = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: true)
            var takesValue = false
            var names: [String] = []
            for word in words {
                if word.hasPrefix("-") {
                    names.append(String(word.hasSuffix(",") ? word.dropLast() : word))
                } else if word.hasPrefix("<") {
                    takesValue = true
                    break
                } else {
                    break
                }
            }
            for name in names { options[name] = takesValue }
        }
    }

    func has(_ flag: String) -> Bool { options[flag] != nil }
    func takesValue(_ flag: String) -> Bool { options[flag] ?? false }
}

/// One `apphost` command in a shell block: its arguments after the program, and its line.
struct DocumentedCommand: Equatable {
    var line: Int
    var arguments: [String]

    static let programs: Set<String> = [
        "apphost", ".build/debug/apphost", ".build/release/apphost", "/usr/bin/apphost",
    ]
    static let shellLanguages: Set<String> = ["sh", "bash", "shell", "console"]
    /// Words that run the command after them.
    static let prefixes: Set<String> = ["sudo", "exec", "time", "nohup", "env"]

    static func all(in markdown: String) -> [DocumentedCommand] {
        var commands: [DocumentedCommand] = []
        var language: String?  // the open fence's, nil outside one
        var pending = ""  // a line continued with a backslash
        var pendingLine = 0
        for (offset, rawLine) in markdown.components(separatedBy: "\n").enumerated() {
            let number = offset + 1
            let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                language = language == nil ? String(trimmed.dropFirst(3)).lowercased() : nil
                pending = ""
                continue
            }
            guard let language, shellLanguages.contains(language) else { continue }
            var line = rawLine
            if pending.isEmpty {
                if language == "console" {
                    guard trimmed.hasPrefix("$ ") else { continue }
                    line = String(trimmed.dropFirst(2))
                } else if trimmed.hasPrefix("$ ") {
                    line = String(trimmed.dropFirst(2))
                }
                pendingLine = number
            }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = pending + line
            pending = ""
            for simple in substitutions(of: whole) {
                for segment in segments(of: simple) {
                    if let arguments = apphostArguments(segment) {
                        commands.append(DocumentedCommand(line: pendingLine, arguments: arguments))
                    }
                }
            }
        }
        return commands
    }

    /// The line with each `$(...)` and `<(...)` replaced by a word, then what those ran: a shell
    /// runs the command inside, quoted or not.
    static func substitutions(of line: String) -> [String] {
        var outer = line
        var inner: [String] = []
        while let open = outer.range(of: "$(") ?? outer.range(of: "<(") {
            var depth = 1
            var close = open.upperBound
            while close < outer.endIndex {
                if outer[close] == "(" { depth += 1 }
                if outer[close] == ")" {
                    depth -= 1
                    if depth == 0 { break }
                }
                close = outer.index(after: close)
            }
            guard close < outer.endIndex else { break }
            inner += substitutions(of: String(outer[open.upperBound..<close]))
            outer.replaceSubrange(open.lowerBound...close, with: "SUBSTITUTION")
        }
        return [outer] + inner
    }

    /// The line's simple commands: words split as a shell would (quotes kept together, a comment
    /// dropped), cut at `|`, `||`, `&&`, `;`, `&`, and ended by a redirection (`<scene>` is a
    /// placeholder, not one).
    static func segments(of line: String) -> [[String]] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        characters: for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case " ", "\t":
                endWord()
            case "#" where !inWord:
                break characters
            default:
                word.append(character)
                inWord = true
            }
        }
        endWord()
        var result: [[String]] = []
        var current: [String] = []
        var redirected = false
        for word in words {
            if ["|", "||", "&&", ";", "&"].contains(word) {
                result.append(current)
                current = []
                redirected = false
                continue
            }
            let placeholder = word.hasPrefix("<") && word.hasSuffix(">") && word.count > 2
            if !placeholder && (word.hasPrefix(">") || word.hasPrefix("<") || word.hasPrefix("2>")) {
                redirected = true
            }
            if !redirected && !word.isEmpty { current.append(word) }
        }
        result.append(current)
        return result.filter { !$0.isEmpty }
    }

    /// The arguments after `apphost` when the segment runs it, else nil.
    static func apphostArguments(_ segment: [String]) -> [String]? {
        var index = segment.startIndex
        while index < segment.endIndex {
            let word = segment[index]
            if prefixes.contains(word) || isAssignment(word) || (index > 0 && word.hasPrefix("-")) {
                index += 1
                continue
            }
            break
        }
        guard index < segment.endIndex, programs.contains(segment[index]) else { return nil }
        return Array(segment[(index + 1)...])
    }

    static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        return word[..<equals].allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}
