import ArgumentParser

// Every failure is one line on stderr, without a stack trace: a usage error (exit 64) as
// ArgumentParser words it, followed by where the help is; any other as the command words it.
// Help and --version still print in full.
do {
    var command = try Apphost.parseAsRoot()
    try command.run()
} catch let failure as CLIFailure {
    if Output.errorsAsJSON {
        Output.errorLine(failure.jsonLine)
    } else {
        Output.error(failure.message)
    }
    Apphost.exit(withError: ExitCode(failure.exitCode))
} catch {
    if let usage = UsageError(error, arguments: Array(CommandLine.arguments.dropFirst())) {
        Output.error(usage.line)
        Apphost.exit(withError: ExitCode.validationFailure)
    }
    Apphost.exit(withError: error)
}
