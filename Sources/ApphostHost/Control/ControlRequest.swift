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
    /// `{"command":"action","scene":S,"name":N,"payload":P}`: a user action on a shown scene, which
    /// lets its guest open one scene (S9). Scenes are named by session id, a prefix of one, or handle.
    case action(scene: String, name: String, payload: String)
    /// `{"command":"close","scene":S}`: close a scene for good, discarding its session (S7).
    case close(scene: String)
    /// `{"command":"dismiss","scene":S}`: ask to dismiss the scene's top modal (N3).
    case dismiss(scene: String)
    /// `{"command":"layout","layout":L,"scene":S,"scene2":S2,"ratio":R}`: rearrange the display
    /// (S11); L is full, split, ratio, slide-over, hide-slide-over, pip or close-pip.
    case layout(HostCore.LayoutChange)

    /// The wire names of the commands, for error messages.
    public static let commandNames = [
        "ps", "switch", "open", "home", "alert", "terminate", "suspend", "resume", "events", "memory-warning",
        "action", "close", "dismiss", "layout",
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
        func scene() throws(ControlProtocolError) -> String {
            guard let scene = wire.scene, !scene.isEmpty else {
                throw ControlProtocolError(
                    "\(wire.command) needs a \"scene\" (a session id, a prefix of one, or a handle)")
            }
            return scene
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
        case "action":
            guard let name = wire.name, !name.isEmpty else {
                throw ControlProtocolError("action needs a \"name\"")
            }
            self = .action(scene: try scene(), name: name, payload: wire.payload ?? "")
        case "close": self = .close(scene: try scene())
        case "dismiss": self = .dismiss(scene: try scene())
        case "layout": self = .layout(try Self.layoutChange(wire, scene: scene))
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
        case .action(let scene, let name, let payload):
            wire = WireRequest(command: "action", scene: scene, name: name, payload: payload)
        case .close(let scene): wire = WireRequest(command: "close", scene: scene)
        case .dismiss(let scene): wire = WireRequest(command: "dismiss", scene: scene)
        case .layout(let change): wire = Self.wire(change)
        }
        return ControlCoding.line(wire)
    }
}

extension ControlRequest {
    /// The layout modes of the `layout` command, as the wire names them.
    public static let layoutModes = ["full", "split", "ratio", "slide-over", "hide-slide-over", "pip", "close-pip"]

    fileprivate static func layoutChange(
        _ wire: WireRequest, scene: () throws(ControlProtocolError) -> String
    ) throws(ControlProtocolError) -> HostCore.LayoutChange {
        func ratio() throws(ControlProtocolError) -> Double {
            guard let ratio = wire.ratio, ratio.isFinite else {
                throw ControlProtocolError("layout \(wire.layout ?? "") needs a \"ratio\"")
            }
            return ratio
        }
        switch wire.layout {
        case "full": return .fullScreen(try scene())
        case "split":
            guard let second = wire.scene2, !second.isEmpty else {
                throw ControlProtocolError("layout split needs a \"scene2\"")
            }
            return .split(try scene(), second, ratio: wire.ratio == nil ? 0.5 : try ratio())
        case "ratio": return .ratio(try ratio())
        case "slide-over": return .slideOver(try scene())
        case "hide-slide-over": return .hideSlideOver
        case "pip": return .pictureInPicture(try scene())
        case "close-pip": return .closePictureInPicture
        default:
            throw ControlProtocolError(
                "layout's \"layout\" is one of \(layoutModes.joined(separator: ", ")), not \"\(wire.layout ?? "")\"")
        }
    }

    fileprivate static func wire(_ change: HostCore.LayoutChange) -> WireRequest {
        var wire = WireRequest(command: "layout")
        switch change {
        case .fullScreen(let scene): (wire.layout, wire.scene) = ("full", scene)
        case .split(let first, let second, let ratio):
            (wire.layout, wire.scene, wire.scene2, wire.ratio) = ("split", first, second, ratio)
        case .ratio(let ratio): (wire.layout, wire.ratio) = ("ratio", ratio)
        case .slideOver(let scene): (wire.layout, wire.scene) = ("slide-over", scene)
        case .hideSlideOver: wire.layout = "hide-slide-over"
        case .pictureInPicture(let scene): (wire.layout, wire.scene) = ("pip", scene)
        case .closePictureInPicture: wire.layout = "close-pip"
        }
        return wire
    }
}

/// The request as it appears on the wire.
private struct WireRequest: Codable {
    var command: String
    var guest: String?
    var dismiss: Bool?
    var level: String?
    var scene: String?
    var name: String?
    var payload: String?
    var layout: String?
    var scene2: String?
    var ratio: Double?
}
