import ApphostVocabulary
import Foundation

/// `{"command":"action","scene":S,"name":N,"payload":P}`: a user action on a shown scene, which
/// lets its guest open one scene (S9). The payload is empty when absent.
public struct ActionCommand: ControlCommand, Equatable {
    public static let name = "action"
    public typealias Response = ControlMessage
    /// A session id, a prefix of one, or a scene handle.
    public var scene: String
    /// The action's name, which the guest interprets.
    public var name: String
    /// Text the guest receives with it, as UTF-8 bytes.
    public var payload: String

    public init(scene: String, name: String, payload: String = "") {
        self.scene = scene
        self.name = name
        self.payload = payload
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Missing reads as empty, which validate() refuses, the name first.
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        scene = try container.decodeIfPresent(String.self, forKey: .scene) ?? ""
        payload = try container.decodeIfPresent(String.self, forKey: .payload) ?? ""
    }

    private enum CodingKeys: String, CodingKey { case scene, name, payload }

    public func validate() throws(ControlProtocolError) {
        try Self.require(name, "name")
        try Self.require(scene, "scene")
    }

    public func apply(to host: any ControlTarget, reply: @escaping Reply) {
        host.performAction(scene: scene, action: name, payload: Data(payload.utf8)) { result in
            reply(result.map { .said("action \(name) sent to scene \(scene)") })
        }
    }
}
