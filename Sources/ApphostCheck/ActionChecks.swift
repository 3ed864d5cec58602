import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation

/// The typed actions' test (CONTRACT F1 to F3): every declared action, called with typical and
/// edge values of its declared types, answers in time and never takes the guest down.
enum ActionChecks {
    static let edgeValues = CheckTest(
        id: "actions", rules: ["F1", "F2", "F3"],
        summary: "answers every action with typical and edge values of its types, in time, without crashing",
        skipReason: { $0.actions.isEmpty ? "guest declares no actions" : nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            let id = descriptor.id
            for action in descriptor.actions {
                for arguments in argumentLists(for: action.arguments) {
                    let mark = host.mark
                    let call = CallCommand(guest: id, action: action.name, arguments: arguments)
                    let shown = "\(action.name)(\(arguments.map(\.description).joined(separator: ", ")))"
                    let answer: Result<ActionCallResult, HostCommandError>
                    do throws(CheckFailure) {
                        answer = try host.send(call, within: policy.watchdog.hardLimit + .seconds(10))
                    } catch {
                        throw CheckFailure(expected: "\(shown) to answer in time", observed: "no answer")
                    }
                    if let death = host.death(of: id, after: mark) {
                        throw CheckFailure(expected: "\(shown) to answer", observed: death.untimedLine)
                    }
                    // The host refused values the declared type allows: the check's fault, not
                    // the guest's; say so rather than blame the guest.
                    if case .failure(let error) = answer, error.kind == .invalid {
                        throw CheckFailure(
                            expected: "the host to take \(shown)", observed: "refused: \(error.description)")
                    }
                }
            }
            try LifecycleChecks.alive(id, in: host, after: 0, policy: policy, doing: "its actions")
        })

    /// The argument lists to call with: every argument typical, then each argument in turn through
    /// its type's edge values, the others typical.
    static func argumentLists(for types: [ActionType]) -> [[JSONValue]] {
        let typical = types.map { edges(of: $0)[0] }
        var lists = [typical]
        for (index, type) in types.enumerated() {
            for value in edges(of: type).dropFirst() {
                var list = typical
                list[index] = value
                lists.append(list)
            }
        }
        return lists
    }

    /// A type's values, the typical first: zero, one, its extremes and -1 where it has them;
    /// the empty, a short and a long text (4 KiB, a multi-byte character included).
    static func edges(of type: ActionType) -> [JSONValue] {
        if let range = type.integerRange {
            let low = JSONValue.integer(Int64(range.lowerBound))
            let high: JSONValue =
                range.upperBound > Int128(Int64.max)
                ? .unsigned(UInt64(range.upperBound)) : .integer(Int64(range.upperBound))
            return [.integer(0), .integer(1), high] + (range.lowerBound < 0 ? [.integer(-1), low] : [])
        }
        switch type {
        case .bool: return [.bool(false), .bool(true)]
        case .double:
            return [.double(0), .double(-1), .double(1e308), .double(-1e308), .double(5e-324), .double(0.5)]
        case .string:
            return [.string(""), .string("a"), .string(String(repeating: "x", count: 4095) + "é")]
        default:
            return [
                .string(""), .string(Data([0]).base64EncodedString()),
                .string(Data(repeating: 0xFF, count: 4096).base64EncodedString()),
            ]
        }
    }
}
