import ApphostPolicy
import ArgumentParser

/// The virtual display scenes are arranged on (CONTRACT S11), how long a user action lets a
/// guest open a scene (S9), and how many notifications a guest may post (N1).
struct SceneOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The virtual display's size in points.", valueName: "width>x<height"))
    var display: String = "1920x1080"

    /// An Int, so that -1 is a value the checks refuse rather than one ArgumentParser cannot read.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Scenes narrower than this are compact, the others regular.", valueName: "points"))
    var compactWidth: Int = 700

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long a user action lets its guest open a scene (transient activation), in seconds.",
            valueName: "seconds"))
    var activation: Double = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Notifications a guest may post within --notification-window.", valueName: "count"))
    var notificationLimit: Int = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The window --notification-limit counts in, in seconds.", valueName: "seconds"))
    var notificationWindow: Double = 60

    func validate() throws {
        _ = try displaySize()
        guard compactWidth > 0 else {
            throw ValidationError("--compact-width must be more than 0 points, not \(compactWidth)")
        }
        guard compactWidth <= UInt32.max else {
            throw ValidationError("--compact-width must be at most \(UInt32.max) points, not \(compactWidth)")
        }
        try Seconds.checkNotNegative(activation, "--activation")
        guard notificationLimit >= 0 else {
            throw ValidationError("--notification-limit must be 0 or more, not \(notificationLimit)")
        }
        try Seconds.checkPositive(notificationWindow, "--notification-window")
    }

    /// "1920x1080" as (1920, 1080); each side from 1 to 16384 points.
    func displaySize() throws -> (UInt32, UInt32) {
        let sides = display.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = UInt32(sides[0]), let height = UInt32(sides[1]),
            (1...16384).contains(width), (1...16384).contains(height)
        else {
            throw ValidationError(
                "--display must be <width>x<height>, each from 1 to 16384, such as 1920x1080; not \"\(display)\".")
        }
        return (width, height)
    }

    var policy: ScenePolicy {
        let (width, height) = (try? displaySize()) ?? (1920, 1080)
        return ScenePolicy(
            displayWidth: width, displayHeight: height, compactBelow: UInt32(clamping: compactWidth),
            activation: .seconds(activation),
            notificationLimit: notificationLimit, notificationWindow: .seconds(notificationWindow))
    }
}
