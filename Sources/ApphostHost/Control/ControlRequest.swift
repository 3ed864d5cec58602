import Foundation

/// One request of the control protocol: a JSON object on one line, such as
/// `{"command":"switch","guest":"org.example.notes"}`.
public enum ControlRequest: Sendable, Equatable {
    /// `{"command":"ps"}`: the host's status.
    case status
    /// `{"command":"switch","guest":ID}`: bring a guest to the foreground (S3, S5), relaunching it if needed.
    case switchTo(guest: String)
    /// `{"command":"home"}`: send the foreground guest to background (S3).
    case home
    /// `{"command":"alert"}`: show a host alert (S4).
    case showAlert
    /// `{"command":"alert","dismiss":true}`: dismiss it (S4).
    case dismissAlert
    /// `{"command":"terminate","guest":ID}`: terminate a guest gracefully (A3).
    case terminate(guest: String)
    /// `{"command":"suspend","guest":ID}`: send a guest to background (S3) and stop it (B7).
    case suspend(guest: String)
    /// `{"command":"resume","guest":ID}`: let a suspended guest run again, in background.
    case resume(guest: String)
    /// `{"command":"events"}`: stream every host event as JSON lines until the connection closes.
    case events
    /// `{"command":"open","guest":ID}`: open a new primary window of a running guest (S2).
    case open(guest: String)
    /// `{"command":"memory-warning","level":"warning"|"critical"}`: memory pressure (A4).
    case memoryWarning(MemoryPressure)

    /// The wire names of the commands, for error messages.
    public static let commandNames = [
        "ps", "switch", "open", "home", "alert", "terminate", "suspend", "resume", "events", "memory-warning",
    ]

    /// Parses one request line; the error says in one line what is wrong with it.
    public init(line: some Collection<UInt8>) throws(ControlProtocolError) {
        let wire: WireRequest
        do {
            wire = try JSONDecoder().decode(WireRequest.self, from: Data(line))
        } catch {
            throw ControlProtocolError(
                "malformed request: expected one JSON object with a \"command\" string, such as {\"command\":\"ps\"}")
        }
        func guest() throws(ControlProtocolError) -> String {
            guard let guest = wire.guest, !guest.isEmpty else {
                throw ControlProtocolError("\(wire.command) needs a \"guest\" (an id or a name)")
            }
            return guest
        }
        switch wire.command {
        case "ps": self = .status
        case "switch": self = .switchTo(guest: try guest())
        case "home": self = .home
        case "alert": self = wire.dismiss == true ? .dismissAlert : .showAlert
        case "terminate": self = .terminate(guest: try guest())
        case "suspend": self = .suspend(guest: try guest())
        case "resume": self = .resume(guest: try guest())
        case "events": self = .events
        case "open": self = .open(guest: try guest())
        case "memory-warning":
            guard let level = MemoryPressure(rawValue: wire.level ?? MemoryPressure.warning.rawValue) else {
                throw ControlProtocolError(
                    "memory-warning's \"level\" is warning or critical, not \"\(wire.level ?? "")\"")
            }
            self = .memoryWarning(level)
        default:
            throw ControlProtocolError(
                "unknown command \"\(wire.command)\" (known: \(Self.commandNames.joined(separator: ", ")))")
        }
    }

    /// The request as one line of JSON, without the newline.
    public var line: String {
        let wire: WireRequest
        switch self {
        case .status: wire = WireRequest(command: "ps")
        case .switchTo(let guest): wire = WireRequest(command: "switch", guest: guest)
        case .home: wire = WireRequest(command: "home")
        case .showAlert: wire = WireRequest(command: "alert")
        case .dismissAlert: wire = WireRequest(command: "alert", dismiss: true)
        case .terminate(let guest): wire = WireRequest(command: "terminate", guest: guest)
        case .suspend(let guest): wire = WireRequest(command: "suspend", guest: guest)
        case .resume(let guest): wire = WireRequest(command: "resume", guest: guest)
        case .events: wire = WireRequest(command: "events")
        case .open(let guest): wire = WireRequest(command: "open", guest: guest)
        case .memoryWarning(let level): wire = WireRequest(command: "memory-warning", level: level.rawValue)
        }
        return ControlCoding.line(wire)
    }
}

/// The request as it appears on the wire.
private struct WireRequest: Codable {
    var command: String
    var guest: String?
    var dismiss: Bool?
    var level: String?
}
