/// How the operator rearranges the display (`ctl layout`).
public enum LayoutChange: Sendable, Equatable {
    case fullScreen(String)
    case split(String, String, ratio: Double)
    /// A new ratio for the split shown.
    case ratio(Double)
    /// Puts a scene on top of the slide-over stack.
    case slideOver(String)
    /// Hides the slide-over stack.
    case hideSlideOver
    case pictureInPicture(String)
    case closePictureInPicture

    /// Refuses a change that is wrong whatever the display shows: a ratio out of
    /// ``Layout/ratios``. `ctl layout` and the control decoder check it with this too.
    public func validate() throws(HostCommandError) {
        switch self {
        case .split(_, _, let ratio), .ratio(let ratio):
            guard Layout.ratios.contains(ratio) else {
                throw .invalid("ratio \(ratio) is out of range (0.1 to 0.9)")
            }
        case .fullScreen, .slideOver, .hideSlideOver, .pictureInPicture, .closePictureInPicture: break
        }
    }
}
