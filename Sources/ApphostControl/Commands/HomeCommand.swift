import ApphostVocabulary

/// `{"command":"home"}`: send the foreground guest to background (S3).
public struct HomeCommand: ImmediateCommand, Equatable {
    public static let name = "home"

    public init() {}

    /// Home with nothing in the foreground is no error, as on iOS; the answer says what happened.
    public func perform(on host: any ControlTarget) -> String {
        let shown = host.layout.visible.map(\.guest)
        host.home()
        let stays = host.layout.visible.map(\.guest)
        var left: [String] = []
        for id in shown where !stays.contains(id) && !left.contains(id) { left.append(id) }
        if !left.isEmpty { return "\(left.joined(separator: ", ")) went to background" }
        return stays.isEmpty ? "nothing is in the foreground" : "only picture in picture is shown, and it stays"
    }
}
