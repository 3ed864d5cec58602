import ApphostHost
import ArgumentParser

/// The virtual display scenes are arranged on (CONTRACT S11), how long a user action lets a
/// guest open a scene (S9), and how many notifications a guest may post (N1).
struct SceneOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The virtual display's size in points.", valueName: "width>x<height"))
    var display: String = "1920x1080"

    @Option(help: ArgumentHelp("Scenes narrower than this are compact, the others regular.", valueName: "points"))
    var compactWidth: UInt32 = 700

    @Option(
        help: ArgumentHelp(
            "How long a user action lets its guest open a scene (transient activation), in seconds.",
            valueName: "seconds"))
    var activation: Double = 5

    @Option(help: ArgumentHelp("Notifications a guest may post within --notification-window.", valueName: "count"))
    var notificationLimit: Int = 5

    @Option(help: ArgumentHelp("The window --notification-limit counts in, in seconds.", valueName: "seconds"))
    var notificationWindow: Double = 60

    func validate() throws {
        _ = try displaySize()
        guard compactWidth > 0 else { throw ValidationError("--compact-width must be more than 0 points.") }
        guard activation >= 0 else { throw ValidationError("--activation must be 0 seconds or more.") }
        try Seconds.checkBounded(activation, "--activation")
        guard notificationLimit >= 0 else { throw ValidationError("--notification-limit must be 0 or more.") }
        guard notificationWindow > 0 else {
            throw ValidationError("--notification-window must be more than 0 seconds.")
        }
        try Seconds.checkBounded(notificationWindow, "--notification-window")
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
            displayWidth: width, displayHeight: height, compactBelow: compactWidth, activation: .seconds(activation),
            notificationLimit: notificationLimit, notificationWindow: .seconds(notificationWindow))
    }
}
