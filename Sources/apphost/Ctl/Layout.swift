import ApphostControl
import ApphostVocabulary
import ArgumentParser

/// `ctl layout`: how the host arranges the scenes it shows (CONTRACT S11).
struct CtlLayout: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Arrange the scenes on the virtual display; guests learn only their sizes (S11).",
        subcommands: [Full.self, Split.self, Ratio.self, SlideOver.self, PictureInPicture.self])

    /// Before the layout subcommand too (`ctl layout --json full S`), as before `layout`.
    @OptionGroup var options: CtlOptions

    static let sceneHelp: ArgumentHelp =
        "A scene: its session id, a unique prefix of one (4 characters or more), or its handle."

    static func send(_ change: LayoutChange, _ options: CtlOptions) throws {
        try ActionOutput.print(
            options.connect().send(LayoutCommand(change)), json: options.json)
    }

    struct Full: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a scene full screen.")
        @Argument(help: CtlLayout.sceneHelp) var scene: String
        @OptionGroup var options: CtlOptions
        func run() throws { try CtlLayout.send(.fullScreen(scene), options) }
    }

    struct Split: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show two scenes side by side.")
        @Argument(help: "The scene on the left.") var left: String
        @Argument(help: "The scene on the right.") var right: String
        @Option(parsing: .unconditional, help: "The left scene's share of the width, from 0.1 to 0.9.")
        var ratio: Double = 0.5
        @OptionGroup var options: CtlOptions
        func run() throws { try CtlLayout.send(.split(left, right, ratio: ratio), options) }
    }

    struct Ratio: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move the divider of the split view shown.",
            usage: "apphost ctl layout ratio <ratio> [--data-dir <dir>] [--json]")
        // Words, so that a negative number reaches the verb's own check (NumberArgument).
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp("The left scene's share of the width, from 0.1 to 0.9.", valueName: "ratio"))
        var words: [String] = []
        @OptionGroup var options: CtlOptions
        func validate() throws { _ = try NumberArgument.value(of: words, name: "ratio") }
        func run() throws { try CtlLayout.send(.ratio(try NumberArgument.value(of: words, name: "ratio")), options) }
    }

    struct SlideOver: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "slide-over", abstract: "Put a scene on top of the slide-over stack, or hide the stack.")
        @Argument(help: CtlLayout.sceneHelp) var scene: String?
        @Flag(help: "Hide the slide-over stack.") var hide = false
        @OptionGroup var options: CtlOptions
        func validate() throws {
            guard (scene == nil) == hide else { throw ValidationError("give a scene, or --hide.") }
        }
        func run() throws { try CtlLayout.send(scene.map { .slideOver($0) } ?? .hideSlideOver, options) }
    }

    struct PictureInPicture: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pip", abstract: "Show a scene in picture in picture, or close it.")
        @Argument(help: CtlLayout.sceneHelp) var scene: String?
        @Flag(help: "Close picture in picture.") var close = false
        @OptionGroup var options: CtlOptions
        func validate() throws {
            guard (scene == nil) == close else { throw ValidationError("give a scene, or --close.") }
        }
        func run() throws {
            try CtlLayout.send(scene.map { .pictureInPicture($0) } ?? .closePictureInPicture, options)
        }
    }
}
