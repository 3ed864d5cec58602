import PackagePlugin

/// Generates the Swift side of the host-worker messages from their one table,
/// Sources/ApphostMessages/include/apphost_messages.h: ApphostVocabulary's GuestEventArea and each
/// report's area (`GuestEvent.area`), ApphostChannels' mapping (GuestCall to ahr_call, ahr_report
/// to GuestEvent), and, for a test target, the mapping the other way. The command runs only when
/// the table (or the generator) changed.
@main
struct WireMessageGenerator: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let table = context.package.directoryURL
            .appending(components: "Sources", "ApphostMessages", "include", "apphost_messages.h")
        let sides = ["ApphostVocabulary": "vocabulary", "ApphostChannels": "channels"]
        let side = sides[target.name] ?? "tests"
        let output = context.pluginWorkDirectoryURL.appending(component: "WireMessages+\(side).swift")
        return [
            .buildCommand(
                displayName: "Generating the \(side) side of apphost_messages.h",
                executable: try context.tool(named: "WireMessageGeneratorTool").url,
                arguments: [table.path(percentEncoded: false), side, output.path(percentEncoded: false)],
                inputFiles: [table],
                outputFiles: [output]
            )
        ]
    }
}
