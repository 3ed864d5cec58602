import ApphostModel

/// A scene the layout shows: a guest's session. Sessions outlive connections, so the layout
/// names them, not handles.
public struct SceneRef: Hashable, Sendable, Codable {
    public var guest: String
    public var session: String

    public init(guest: String, session: String) {
        self.guest = guest
        self.session = session
    }
}

/// How the host arranges the scenes it shows on its virtual display (S11). Guests never see it:
/// they learn only their scenes' sizes. Every scene it names is in the foreground; the others
/// of running guests are in background.
public struct Layout: Sendable, Equatable, Codable {
    /// What fills the display.
    public enum Main: Sendable, Equatable, Codable {
        case empty
        case fullScreen(SceneRef)
        /// Two scenes side by side; `ratio` is the first one's share of the width.
        case split(SceneRef, SceneRef, ratio: Double)

        // In JSON: {"mode":"split","scenes":[...],"ratio":0.5}, {"mode":"fullScreen","scenes":[...]}
        // or {"mode":"empty","scenes":[]}, for tools such as jq.
        private enum CodingKeys: String, CodingKey { case mode, scenes, ratio }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let scenes = try container.decode([SceneRef].self, forKey: .scenes)
            switch (try container.decode(String.self, forKey: .mode), scenes.count) {
            case ("empty", 0): self = .empty
            case ("fullScreen", 1): self = .fullScreen(scenes[0])
            case ("split", 2):
                self = .split(scenes[0], scenes[1], ratio: try container.decode(Double.self, forKey: .ratio))
            case (let mode, let count):
                throw DecodingError.dataCorruptedError(
                    forKey: .mode, in: container, debugDescription: "no layout \(mode) of \(count) scenes")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .empty:
                try container.encode("empty", forKey: .mode)
                try container.encode([SceneRef](), forKey: .scenes)
            case .fullScreen(let scene):
                try container.encode("fullScreen", forKey: .mode)
                try container.encode([scene], forKey: .scenes)
            case .split(let first, let second, let ratio):
                try container.encode("split", forKey: .mode)
                try container.encode([first, second], forKey: .scenes)
                try container.encode(ratio, forKey: .ratio)
            }
        }
    }

    public var main: Main = .empty
    /// Slide over: overlays stacked on the right edge; only the top one (the last) is shown.
    public var slideOver: [SceneRef] = []
    public var pictureInPicture: SceneRef?
    /// A scene above all the others, which stay visible but inactive until it closes (S10).
    public var prominent: SceneRef?

    public init() {}

    /// The split ratios a user can set: neither side thinner than a tenth of the display.
    public static let ratios: ClosedRange<Double> = 0.1...0.9

    /// The scenes shown, in the order they are arranged: main, slide over, picture in
    /// picture, prominent.
    public var visible: [SceneRef] {
        var shown: [SceneRef]
        switch main {
        case .empty: shown = []
        case .fullScreen(let scene): shown = [scene]
        case .split(let first, let second, _): shown = [first, second]
        }
        if let top = slideOver.last { shown.append(top) }
        if let pictureInPicture { shown.append(pictureInPicture) }
        if let prominent { shown.append(prominent) }
        return shown
    }

    /// The scenes filling the display.
    public var mainScenes: [SceneRef] {
        switch main {
        case .empty: []
        case .fullScreen(let scene): [scene]
        case .split(let first, let second, _): [first, second]
        }
    }

    /// Where `scene` is shown, in words; nil when it is not.
    public func placement(of scene: SceneRef) -> String? {
        switch main {
        case .fullScreen(scene): return "full screen"
        case .split(scene, _, _): return "split left"
        case .split(_, scene, _): return "split right"
        default: break
        }
        if prominent == scene { return "prominent" }
        if pictureInPicture == scene { return "picture in picture" }
        if slideOver.last == scene { return "slide over" }
        if slideOver.contains(scene) { return "slide over (hidden)" }
        return nil
    }

    /// The layout without `scene` anywhere: a split it was half of becomes the other half's
    /// full screen.
    public func removing(_ scene: SceneRef) -> Layout {
        var next = self
        switch main {
        case .fullScreen(scene): next.main = .empty
        case .split(scene, let other, _), .split(let other, scene, _): next.main = .fullScreen(other)
        default: break
        }
        next.slideOver.removeAll { $0 == scene }
        if pictureInPicture == scene { next.pictureInPicture = nil }
        if prominent == scene { next.prominent = nil }
        return next
    }

    /// The layout without any scene for which `keep` is false.
    public func keeping(_ keep: (SceneRef) -> Bool) -> Layout {
        var next = self
        for scene in Set(visible + slideOver) where !keep(scene) { next = next.removing(scene) }
        return next
    }

    /// "<guest>/<session's first 8 characters>", as operators see a scene.
    public static func shortName(_ scene: SceneRef) -> String { "\(scene.guest)/\(scene.session.prefix(8))" }

    /// One line for operators, e.g. "split 0.50: notes/1a2b | notes/3c4d; slide over: mail/9f".
    public func describe(_ name: (SceneRef) -> String) -> String {
        var parts: [String]
        switch main {
        case .empty: parts = ["home"]
        case .fullScreen(let scene): parts = ["full screen: \(name(scene))"]
        case .split(let first, let second, let ratio):
            parts = ["split \(String(format: "%.2f", ratio)): \(name(first)) | \(name(second))"]
        }
        if !slideOver.isEmpty { parts.append("slide over: " + slideOver.reversed().map(name).joined(separator: ", ")) }
        if let pictureInPicture { parts.append("picture in picture: \(name(pictureInPicture))") }
        if let prominent { parts.append("prominent: \(name(prominent))") }
        return parts.joined(separator: "; ")
    }
}
