/// A scene's size class (CONTRACT S11). Raw values are the C ABI's `enum apphost_size_class`.
public enum SizeClass: Int32, Sendable, CodableByName {
    case compact = 0
    case regular = 1
}

/// A scene's size in points of the virtual display, with its size class: all a guest learns of
/// the layout it is in (S11).
public struct SceneSize: Sendable, Codable, Equatable, CustomStringConvertible {
    public var width: UInt32
    public var height: UInt32
    public var sizeClass: SizeClass

    public init(width: UInt32, height: UInt32, sizeClass: SizeClass) {
        self.width = width
        self.height = height
        self.sizeClass = sizeClass
    }

    /// "1024x768 regular", as `ctl ps` shows it.
    public var description: String { "\(width)x\(height) \(sizeClass)" }
}
