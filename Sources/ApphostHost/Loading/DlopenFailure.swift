/// Turns dlerror's text into a precise cause (CONTRACT X1). glibc's messages name what is
/// missing after fixed phrases; anything else is passed on as it is.
enum DlopenFailure {
    static func cause(of message: String, loading path: String) -> LoadError.Cause {
        if let range = message.range(of: ": cannot open shared object file") {
            // "<name>: cannot open shared object file: ..." names the DT_NEEDED library.
            return .unresolvedDependency(String(message[..<range.lowerBound]))
        }
        if let range = message.range(of: "undefined symbol: ") {
            return .unresolvedSymbol(String(message[range.upperBound...]))
        }
        // The description already names the file; do not repeat it.
        let prefix = path + ": "
        return .dlopenFailed(message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
    }
}
