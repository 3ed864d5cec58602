import Foundation

/// The secret a client of the HTTP API presents as `Authorization: Bearer <token>` (CONTRACT O1),
/// read from a file only its owner can read, as systemd credentials and Prometheus'
/// `bearer_token_file` keep theirs.
public struct BearerToken: Sendable {
    let bytes: [UInt8]
    /// The token as a client sends it (`apphost ctl --url --token-file`).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Fewer characters than this are too easy to guess: `openssl rand -hex 16` makes 32.
    public static let minimumLength = 16

    /// The token is the file's first line, without the spaces around it. The file must be a
    /// regular file that neither its group nor others may read or write (mode 0600 or 0400), and
    /// the token at least ``minimumLength`` characters.
    public init(file path: String) throws(HTTPSetupError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw HTTPSetupError("cannot read the token file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw HTTPSetupError("the token file \(path) is not a regular file")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw HTTPSetupError(
                "the token file \(path) has mode \(String(mode, radix: 8)): others may read it; make it 600 (chmod 600 \(path))"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HTTPSetupError("cannot read the token file \(path)")
        }
        // The first line, even an empty one: a blank first line is a mistake, not a separator.
        let line =
            String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .first ?? ""
        let token = line.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw HTTPSetupError("the token file \(path) has no token on its first line") }
        guard token.count >= Self.minimumLength else {
            throw HTTPSetupError(
                "the token in \(path) has \(token.count) characters; use \(Self.minimumLength) at least (openssl rand -hex 16)"
            )
        }
        bytes = Array(token.utf8)
    }

    /// Whether an `Authorization` header's value presents this token. Compares in a time that does
    /// not depend on where the first difference is, so that timing does not reveal the token.
    func accepts(authorization value: String?) -> Bool {
        // The scheme is case-insensitive (RFC 9110, 11.1).
        guard let value, value.count > 7, value.prefix(7).lowercased() == "bearer " else { return false }
        let presented = Array(value.utf8.dropFirst(7))
        guard presented.count == bytes.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(presented, bytes) { difference |= a ^ b }
        return difference == 0
    }
}
