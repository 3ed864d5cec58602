import ApphostVocabulary

/// `{"command":"layout","layout":L,"scene":S,"scene2":S2,"ratio":R}`: rearrange the display
/// (S11); L is one of ``modes``. Members a mode does not use are ignored.
public struct LayoutCommand: ControlCommand, Equatable {
    public static let name = "layout"
    public typealias Response = ControlMessage
    public var change: LayoutChange

    /// The layout modes, as the wire names them.
    public static let modes = ["full", "split", "ratio", "slide-over", "hide-slide-over", "pip", "close-pip"]

    public init(_ change: LayoutChange) { self.change = change }

    private enum CodingKeys: String, CodingKey { case layout, scene, scene2, ratio }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let layout = try container.decodeIfPresent(String.self, forKey: .layout)
        let scene = try container.decodeIfPresent(String.self, forKey: .scene)
        let scene2 = try container.decodeIfPresent(String.self, forKey: .scene2)
        let ratio = try container.decodeIfPresent(Double.self, forKey: .ratio)
        func named(_ scene: String?, _ member: String) throws(ControlProtocolError) -> String {
            guard let scene, !scene.isEmpty else {
                throw member == "scene" ? Self.needs(member) : Self.needsForMode(member)
            }
            return scene
        }
        func given(_ ratio: Double?) throws(ControlProtocolError) -> Double {
            guard let ratio, ratio.isFinite else {
                throw ControlProtocolError("layout \(layout ?? "") needs a \"ratio\"")
            }
            return ratio
        }
        switch layout {
        case "full": change = .fullScreen(try named(scene, "scene"))
        case "split":
            let second = try named(scene2, "scene2")
            change = .split(try named(scene, "scene"), second, ratio: ratio == nil ? 0.5 : try given(ratio))
        case "ratio": change = .ratio(try given(ratio))
        case "slide-over": change = .slideOver(try named(scene, "scene"))
        case "hide-slide-over": change = .hideSlideOver
        case "pip": change = .pictureInPicture(try named(scene, "scene"))
        case "close-pip": change = .closePictureInPicture
        default:
            throw ControlProtocolError(
                "layout's \"layout\" is one of \(Self.modes.joined(separator: ", ")), not \"\(layout ?? "")\"")
        }
    }

    /// The second scene of a split: its error names the mode.
    private static func needsForMode(_ member: String) -> ControlProtocolError {
        ControlProtocolError("layout split needs a \"\(member)\"")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch change {
        case .fullScreen(let scene):
            try container.encode("full", forKey: .layout)
            try container.encode(scene, forKey: .scene)
        case .split(let first, let second, let ratio):
            try container.encode("split", forKey: .layout)
            try container.encode(first, forKey: .scene)
            try container.encode(second, forKey: .scene2)
            try container.encode(ratio, forKey: .ratio)
        case .ratio(let ratio):
            try container.encode("ratio", forKey: .layout)
            try container.encode(ratio, forKey: .ratio)
        case .slideOver(let scene):
            try container.encode("slide-over", forKey: .layout)
            try container.encode(scene, forKey: .scene)
        case .hideSlideOver: try container.encode("hide-slide-over", forKey: .layout)
        case .pictureInPicture(let scene):
            try container.encode("pip", forKey: .layout)
            try container.encode(scene, forKey: .scene)
        case .closePictureInPicture: try container.encode("close-pip", forKey: .layout)
        }
    }

    public func validate() throws(ControlProtocolError) {
        do throws(HostCommandError) {
            try change.validate()
        } catch {
            throw ControlProtocolError(error.message)
        }
    }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        host.operation(replying: reply) { completion in
            host.changeLayout(change) { completion($0.map { "layout: \(host.layout.describe(Layout.shortName))" }) }
        }
    }
}
