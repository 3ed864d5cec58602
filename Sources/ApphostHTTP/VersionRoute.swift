import ApphostControl
import Hummingbird

/// What a host was built as (CONTRACT O4): the release, and the guest ABI it implements.
public struct HostVersion: Codable, Sendable, Equatable {
    public var version: String
    public var abi: String

    public init(version: String, abi: String) {
        self.version = version
        self.abi = abi
    }
}

/// `GET /v1/version`, in the control replies' form: `{"ok":true,"result":{"abi":...,"version":...}}`.
struct VersionRoute: Sendable {
    let version: HostVersion

    func add(to router: Router<HostRequestContext>) {
        let line = ControlReply.success(version).line
        router.get("/v1/version") { _, _ in JSONReply.response(line: line, status: .ok) }
    }
}
