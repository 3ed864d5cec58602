import Foundation

/// Whole lines straight to the file descriptors: nothing is buffered, so a reader sees each
/// event as soon as it happens, and lines written from different threads never mix.
enum Output {
    static func line(_ text: String) { emit(text + "\n", to: STDOUT_FILENO) }

    /// An error line on stderr, as every apphost error looks.
    static func error(_ message: String) { emit("apphost: \(message)\n", to: STDERR_FILENO) }

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
