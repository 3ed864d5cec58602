/// A modal presentation's id (`apphost_modal_t`), given by the guest's runtime: never zero.
public typealias ModalID = UInt64

/// How modal content covers its scene (CONTRACT N3). Raw values are the C ABI's
/// `enum apphost_modal_style`.
public enum ModalStyle: Int32, Sendable, CodableByName {
    case sheet = 0
    case fullScreen = 1
}
