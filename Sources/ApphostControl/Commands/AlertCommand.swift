import ApphostVocabulary

/// `{"command":"alert"}`: show a host alert (S4); `{"command":"alert","dismiss":true}`: dismiss it.
public struct AlertCommand: ImmediateCommand, Equatable {
    public static let name = "alert"
    /// Dismiss the alert rather than show it.
    public var dismiss: Bool

    public init(dismiss: Bool = false) { self.dismiss = dismiss }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        dismiss = try container.decodeIfPresent(Bool.self, forKey: .dismiss) ?? false
    }

    /// Only `"dismiss":true` goes on the wire, as a request to show has no members.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if dismiss { try container.encode(true, forKey: .dismiss) }
    }

    private enum CodingKeys: String, CodingKey { case dismiss }

    public func perform(on host: any ControlTarget) throws(HostCommandError) -> String {
        guard dismiss else {
            try host.showAlert()
            return "alert shown"
        }
        try host.dismissAlert()
        return "alert dismissed"
    }
}
