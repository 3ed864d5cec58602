import ApphostModel

/// What an operator gives an action (F2): JSON values, checked strictly against the declared types
/// (`ctl call --json`, the HTTP API), or command-line words, each read as its type says.
public enum ActionArguments: Sendable, Equatable {
    case json([JSONValue])
    case words([String])

    var count: Int {
        switch self {
        case .json(let values): values.count
        case .words(let words): words.count
        }
    }

    /// The values `action` is called with, or the one line that names the first argument wrong.
    public func values(for action: GuestAction) throws(HostCommandError) -> [ActionValue] {
        guard count == action.arguments.count else {
            let takes = action.arguments.count
            throw HostCommandError.invalid(
                "\(action.signature) takes \(takes) argument\(takes == 1 ? "" : "s"), not \(count)"
                    + (takes == 0 ? "" : " (\(action.arguments.map(\.rawValue).joined(separator: " ")))"))
        }
        var values: [ActionValue] = []
        for (index, type) in action.arguments.enumerated() {
            do throws(ActionValue.Refusal) {
                switch self {
                case .json(let json): values.append(try ActionValue(json: json[index], as: type))
                case .words(let words): values.append(try ActionValue(word: words[index], as: type))
                }
            } catch {
                throw HostCommandError.invalid(
                    "\(action.signature): argument \(index + 1) (\(type.rawValue)): \(error.reason)")
            }
        }
        return values
    }
}
