import ApphostModel

/// The host's numbers for scenes (S9, S11, N1); each has a launch flag.
public struct ScenePolicy: Sendable, Equatable {
    /// The virtual display scenes are arranged on, in points.
    public var displayWidth: UInt32
    public var displayHeight: UInt32
    /// Scenes narrower than this are compact, the others regular (S11).
    public var compactBelow: UInt32
    /// How long a user action lets its guest open a scene (S9).
    public var activation: Duration
    /// How many notifications a guest may post within `notificationWindow` (N1).
    public var notificationLimit: Int
    public var notificationWindow: Duration

    public init(
        displayWidth: UInt32 = 1920, displayHeight: UInt32 = 1080, compactBelow: UInt32 = 700,
        activation: Duration = .seconds(5), notificationLimit: Int = 5, notificationWindow: Duration = .seconds(60)
    ) {
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.compactBelow = compactBelow
        self.activation = activation
        self.notificationLimit = notificationLimit
        self.notificationWindow = notificationWindow
    }

    func size(width: UInt32, height: UInt32) -> SceneSize {
        SceneSize(width: width, height: height, sizeClass: width < compactBelow ? .compact : .regular)
    }
}
