import CApphost

/// Names of C status codes, as `apphost_status_name` gives them, for messages about guests.
public enum StatusName {
    public static func of(_ status: Int32) -> String { String(cString: apphost_status_name(status)) }
}
