/// A failure the CLI reports as one line on stderr ("apphost: ...") with a non-zero exit.
struct CLIFailure: Error {
    var message: String
    var exitCode: Int32 = 1

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: some CustomStringConvertible) { self.init(error.description) }
}
