import CApphost

/// `enum apphost_status` values as the `apphost_status_t` the ABI passes around, for assertions.
enum StatusCode {
    static let ok = Int32(APPHOST_OK.rawValue)
    static let invalidArgument = Int32(APPHOST_ERROR_INVALID_ARGUMENT.rawValue)
    static let invalidHandle = Int32(APPHOST_ERROR_INVALID_HANDLE.rawValue)
    static let invalidState = Int32(APPHOST_ERROR_INVALID_STATE.rawValue)
    static let tooLarge = Int32(APPHOST_ERROR_TOO_LARGE.rawValue)
    static let `internal` = Int32(APPHOST_ERROR_INTERNAL.rawValue)
    static let wrongThread = Int32(APPHOST_ERROR_WRONG_THREAD.rawValue)
    static let notDeclared = Int32(APPHOST_ERROR_NOT_DECLARED.rawValue)
    static let invalidCombination = Int32(APPHOST_ERROR_INVALID_COMBINATION.rawValue)
    static let unsupported = Int32(APPHOST_ERROR_UNSUPPORTED.rawValue)
    static let limitReached = Int32(APPHOST_ERROR_LIMIT_REACHED.rawValue)
}
