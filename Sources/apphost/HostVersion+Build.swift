import ApphostHTTP
import ApphostModel

extension HostVersion {
    /// This build's release and the guest ABI it implements.
    static let build = HostVersion(version: "0.9.0", abi: ABIVersion.current.description)
}
