import ApphostHTTP
import ApphostModel
import ApphostVersion

extension HostVersion {
    /// This build's release (ApphostVersion's header, the one place it is written) and the guest
    /// ABI it implements.
    static let build = HostVersion(version: APPHOST_VERSION, abi: ABIVersion.current.description)
}
