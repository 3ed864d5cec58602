import ApphostVocabulary

/// Turns dlerror's text into a precise cause (CONTRACT X1). glibc's messages name what is
/// missing after fixed phrases; anything else is passed on as it is.
package enum DlopenFailure {
    package static func cause(of message: String, loading path: String) -> LoadError.Cause {
        if let range = message.range(of: ": cannot open shared object file") {
            // "<name>: cannot open shared object file: <why>" names the DT_NEEDED library, or the
            // library itself when the loader may not read it (a worker under a user of its own).
            let name = String(message[..<range.lowerBound])
            guard name == path else { return .unresolvedDependency(name) }
            let why = message[range.upperBound...].drop { $0 == ":" || $0 == " " }
            return .unreadable(why.isEmpty ? "the dynamic loader cannot open it" : String(why))
        }
        if let range = message.range(of: "undefined symbol: ") {
            return .unresolvedSymbol(String(message[range.upperBound...]))
        }
        // The description already names the file; do not repeat it.
        let prefix = path + ": "
        return .dlopenFailed(message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
    }
}
