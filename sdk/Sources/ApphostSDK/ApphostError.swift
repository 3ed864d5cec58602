import CApphost

/// A status code of the C ABI (`enum apphost_status`) other than `APPHOST_OK`.
///
/// Host functions throw it; a guest throws it from
/// ``GuestApp/didFinishLaunching(host:)`` to fail its launch with that code.
/// ``name`` is the C ABI's stable name, such as "invalid_handle".
public enum ApphostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A NULL pointer, an empty string or a value out of range.
    case invalidArgument
    /// A scene (or other) handle the host does not know, or no longer knows.
    case invalidHandle
    /// The call is not allowed in the current app or scene state.
    case invalidState
    /// The host does not offer this function or value.
    case unsupported
    /// The host could not allocate what the call needs.
    case outOfMemory
    /// The data is larger than the host accepts.
    case tooLarge
    /// The guest failed.
    case guestFailed
    /// The host failed for a reason of its own (`APPHOST_ERROR_INTERNAL`).
    case internalError
    /// Opening a scene needs a user action's transient activation, and the guest holds none
    /// (CONTRACT S9; ABI 1.1).
    case noActivation
    /// A main-queue function was called from a thread that is not delivering one of the host's
    /// callbacks to this guest; it did nothing (CONTRACT X3; ABI 1.2).
    case wrongThread
    /// The call needs a capability the guest's descriptor does not declare, such as
    /// ``GuestCapabilities/multipleScenes`` for a second scene (CONTRACT S13; ABI 1.2).
    case notDeclared
    /// Refused by one of the host's limits, such as how many notifications a guest may post in a
    /// while (CONTRACT N1; ABI 1.2); the same call may succeed later.
    case limitReached
    /// Values that are each valid but are refused together, such as an audio category with an
    /// option it does not take (CONTRACT C3; ABI 1.4); the call changed nothing.
    case invalidCombination
    /// A code these headers do not know, from a newer host.
    case unknown(Int32)

    /// The error for `status`, or nil for `APPHOST_OK`.
    public init?(status: Int32) {
        if status == Int32(APPHOST_OK.rawValue) { return nil }
        self = Self.known.first { $0.status == status } ?? .unknown(status)
    }

    private static let known: [ApphostError] = [
        .invalidArgument, .invalidHandle, .invalidState, .unsupported, .outOfMemory, .tooLarge,
        .guestFailed, .internalError, .noActivation, .wrongThread, .notDeclared, .limitReached,
        .invalidCombination,
    ]

    /// The C status code.
    public var status: Int32 {
        let code: apphost_status
        switch self {
        case .invalidArgument: code = APPHOST_ERROR_INVALID_ARGUMENT
        case .invalidHandle: code = APPHOST_ERROR_INVALID_HANDLE
        case .invalidState: code = APPHOST_ERROR_INVALID_STATE
        case .unsupported: code = APPHOST_ERROR_UNSUPPORTED
        case .outOfMemory: code = APPHOST_ERROR_OUT_OF_MEMORY
        case .tooLarge: code = APPHOST_ERROR_TOO_LARGE
        case .guestFailed: code = APPHOST_ERROR_GUEST_FAILED
        case .internalError: code = APPHOST_ERROR_INTERNAL
        case .noActivation: code = APPHOST_ERROR_NO_ACTIVATION
        case .wrongThread: code = APPHOST_ERROR_WRONG_THREAD
        case .notDeclared: code = APPHOST_ERROR_NOT_DECLARED
        case .limitReached: code = APPHOST_ERROR_LIMIT_REACHED
        case .invalidCombination: code = APPHOST_ERROR_INVALID_COMBINATION
        case .unknown(let status): return status
        }
        return Int32(code.rawValue)
    }

    /// The C ABI's name for the code, from `apphost_status_name`, such as
    /// "too_large"; "unknown" for a code these headers do not know.
    public var name: String { String(cString: apphost_status_name(status)) }

    public var description: String { "\(name) (\(status))" }

    /// Throws the error for `status` unless it is `APPHOST_OK`.
    static func check(_ status: Int32) throws {
        if let error = ApphostError(status: status) { throw error }
    }
}
