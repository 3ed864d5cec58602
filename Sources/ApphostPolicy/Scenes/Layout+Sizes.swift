import ApphostModel
import ApphostVocabulary

extension Layout {
    /// The size of each scene shown, by where it is (S11): full screen takes the display; a split
    /// divides its width by the ratio; slide over is a 320-point column; picture in picture a
    /// quarter of the width at 16:9; a prominent scene 70% by 80% of the display.
    func sizes(_ policy: ScenePolicy) -> [SceneRef: SceneSize] {
        let width = policy.displayWidth
        let height = policy.displayHeight
        var sizes: [SceneRef: SceneSize] = [:]
        switch main {
        case .empty: break
        case .fullScreen(let scene): sizes[scene] = policy.size(width: width, height: height)
        case .split(let first, let second, let ratio):
            let firstWidth = UInt32((Double(width) * ratio).rounded())
            sizes[first] = policy.size(width: firstWidth, height: height)
            sizes[second] = policy.size(width: width - firstWidth, height: height)
        }
        if let top = slideOver.last { sizes[top] = policy.size(width: min(width, 320), height: height) }
        if let pictureInPicture {
            let pipWidth = width / 4
            sizes[pictureInPicture] = policy.size(width: pipWidth, height: pipWidth * 9 / 16)
        }
        if let prominent {
            sizes[prominent] = policy.size(
                width: UInt32((Double(width) * 0.7).rounded()), height: UInt32((Double(height) * 0.8).rounded()))
        }
        return sizes
    }
}
