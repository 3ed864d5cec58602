import ArgumentParser

// ArgumentParser prints usage errors itself; every other failure is one line, without a stack trace.
do {
    var command = try Apphost.parseAsRoot()
    try command.run()
} catch let failure as CLIFailure {
    Output.error(failure.message)
    Apphost.exit(withError: ExitCode(failure.exitCode))
} catch {
    Apphost.exit(withError: error)
}
