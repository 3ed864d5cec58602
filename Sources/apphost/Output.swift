import ApphostVocabulary
import Foundation
import Synchronization

/// Whole lines straight to the file descriptors: nothing is buffered, so a reader sees each
/// event as soon as it happens, and lines written from different threads never mix.
enum Output {
    /// Where `line` writes: standard output, or the copy of it `divertStandardOutput` made.
    private static let standardOutput = Atomic<Int32>(STDOUT_FILENO)

    static func line(_ text: String) { emit(text + "\n", to: standardOutput.load(ordering: .relaxed)) }

    /// `text` as is, for text that ends its own lines (`ctl metrics`).
    static func text(_ text: String) { emit(text, to: standardOutput.load(ordering: .relaxed)) }

    /// An error line on stderr, as every apphost error looks: one line, whatever a guest put in
    /// the message (its control characters escaped, CONTRACT X2, X7).
    static func error(_ message: String) { emit("apphost: \(TerminalText.escaped(message))\n", to: STDERR_FILENO) }

    /// Whether `error` lines are JSON (`ctl --json`): set once, before anything fails.
    nonisolated(unsafe) static var errorsAsJSON = false

    /// One line on standard error as it is (a JSON error line: its escapes keep it one line).
    static func errorLine(_ line: String) { emit(line + "\n", to: STDERR_FILENO) }

    /// Keeps standard output for this process's own lines and points descriptor 1 at standard
    /// error: what anything else in the process writes there (a guest run in the host's process,
    /// a library) lands among the errors, never among the lines `line` prints, and a worker
    /// process started from here inherits that too. Returns the descriptor `line` writes to from
    /// now on. Call it once, before starting any thread that prints.
    @discardableResult
    static func divertStandardOutput() -> Int32 {
        let copy = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return STDOUT_FILENO }  // Closed: there is nothing to keep apart.
        // Standard error, or nowhere when that is closed too.
        if dup2(STDERR_FILENO, STDOUT_FILENO) != STDOUT_FILENO {
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            guard null >= 0, dup2(null, STDOUT_FILENO) == STDOUT_FILENO else {
                if null >= 0 { close(null) }
                close(copy)
                return STDOUT_FILENO
            }
            close(null)
        }
        standardOutput.store(copy, ordering: .relaxed)
        return copy
    }

    private static func emit(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // A closed pipe: nobody reads any more.
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
