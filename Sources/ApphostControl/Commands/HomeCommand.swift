import ApphostVocabulary

/// `{"command":"home"}`: send the foreground guest to background (S3).
public struct HomeCommand: ControlCommand, Equatable {
    public static let name = "home"

    public init() {}

    /// Home with nothing in the foreground is no error, as on iOS; the answer says what happened.
    public func apply(
        to host: any ControlTarget, reply: @escaping @Sendable (Result<ControlMessage, HostCommandError>) -> Void
    ) {
        let shown = host.layout.visible.map(\.guest)
        host.home()
        let stays = host.layout.visible.map(\.guest)
        var left: [String] = []
        for id in shown where !stays.contains(id) && !left.contains(id) { left.append(id) }
        if !left.isEmpty {
            reply(.success(.said("\(left.joined(separator: ", ")) went to background")))
        } else if stays.isEmpty {
            reply(.success(.said("nothing is in the foreground")))
        } else {
            reply(.success(.said("only picture in picture is shown, and it stays")))
        }
    }
}
