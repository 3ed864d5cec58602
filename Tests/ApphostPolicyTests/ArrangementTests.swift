import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// The arrangement on its own (CONTRACT S11, S3, S4, S10): no core, no channel. Each test hands
/// it the next layout and which scenes are in the foreground, and reads the scenes it moves, in
/// order. The default display: 1920x1080, compact below 700 points.
final class ArrangementTests: XCTestCase {
    private var arrangement = Arrangement(policy: ScenePolicy())
    private let a1 = SceneRef(guest: "org.test.a", session: "a1")
    private let a2 = SceneRef(guest: "org.test.a", session: "a2")
    private let b1 = SceneRef(guest: "org.test.b", session: "b1")
    private let full = SceneSize(width: 1920, height: 1080, sizeClass: .regular)
    private let half = SceneSize(width: 960, height: 1080, sizeClass: .regular)

    private func arrange(_ next: Layout, foreground: [SceneRef], showable: Set<SceneRef>? = nil) -> [ArrangementEffect]
    {
        arrangement.arrange(next, showable: { showable?.contains($0) ?? true }, foreground: foreground)
    }

    private func layoutLine() -> ArrangementEffect {
        .record(.layout, message: arrangement.layout.describe(Layout.shortName))
    }

    // CONTRACT S11, S3: a scene shown full screen replaces another guest's, which leaves first
    // and goes to background; the scene shown learns the display's size; the layout is recorded.
    func testS11S3FullScreenReplacesAnotherGuestsScene() {
        _ = arrange(arrangement.fullScreen(a1), foreground: [])
        let effects = arrange(arrangement.fullScreen(b1), foreground: [a1])
        XCTAssertEqual(effects, [.hide(a1), .show(b1, size: full, active: true), layoutLine()])
        XCTAssertEqual(arrangement.foregroundID, "org.test.b")
    }

    // CONTRACT S3: a guest that switches windows never passes through background: its last
    // foreground scene leaves after its new one arrives; one it keeps lets the others go first.
    func testS3AGuestSwitchingWindowsNeverPassesThroughBackground() {
        _ = arrange(arrangement.fullScreen(a1), foreground: [])
        XCTAssertEqual(
            arrange(arrangement.fullScreen(a2), foreground: [a1]),
            [.show(a2, size: full, active: true), .hide(a1), layoutLine()])
        var split = Layout()
        split.main = .split(a2, b1, ratio: 0.5)
        _ = arrange(split, foreground: [a2])
        var next = Layout()
        next.main = .split(a1, a2, ratio: 0.5)
        XCTAssertEqual(
            arrange(next, foreground: [a2, b1]),
            [.hide(b1), .show(a1, size: half, active: true), .show(a2, size: half, active: true), layoutLine()])
        // a2 stays: a1 leaves before a2 takes the whole display.
        XCTAssertEqual(
            arrange(arrangement.fullScreen(a2), foreground: [a1, a2]),
            [.hide(a1), .show(a2, size: full, active: true), layoutLine()])
    }

    // CONTRACT S11, S4: the same layout again moves nothing new and records nothing; an alert
    // makes the scenes shown resign active only, its dismissal makes them active again, and a
    // second alert, or a dismissal with none, is refused.
    func testS4AlertCoversTheForeground() throws {
        _ = arrange(arrangement.fullScreen(a1), foreground: [])
        XCTAssertEqual(arrange(arrangement.layout, foreground: [a1]), [.show(a1, size: full, active: true)])
        XCTAssertEqual(try arrangement.alert(true), .record(.alert, name: "shown"))
        XCTAssertThrowsError(try arrangement.alert(true))
        XCTAssertEqual(arrange(arrangement.layout, foreground: [a1]), [.show(a1, size: full, active: false)])
        XCTAssertEqual(try arrangement.alert(false), .record(.alert, name: "dismissed"))
        XCTAssertThrowsError(try arrangement.alert(false))
        XCTAssertEqual(arrange(arrangement.layout, foreground: [a1]), [.show(a1, size: full, active: true)])
    }

    // CONTRACT S10, S4: a prominent scene covers the others, which resign active only; standard
    // opens beside the scene it came from; a scene shown already is not shown again.
    func testS10PresentationStyles() throws {
        _ = arrange(arrangement.fullScreen(a1), foreground: [])
        let beside = try XCTUnwrap(arrangement.presenting(a2, style: .standard, beside: a1))
        XCTAssertEqual(beside.main, .split(a1, a2, ratio: 0.5))
        XCTAssertNil(arrangement.presenting(a1, style: .automatic, beside: nil))
        let prominent = try XCTUnwrap(arrangement.presenting(b1, style: .prominent, beside: nil))
        XCTAssertEqual(
            arrange(prominent, foreground: [a1]),
            [
                .show(a1, size: full, active: false), .show(b1, size: prominent.sizes(ScenePolicy())[b1], active: true),
                layoutLine(),
            ])
    }

    // CONTRACT S11, S3: home sends what fills the display to background; a scene that may not be
    // shown (its guest stopped, its session gone) leaves the layout.
    func testS11HomeAndScenesThatMayNotBeShown() {
        var split = Layout()
        split.main = .split(a1, b1, ratio: 0.5)
        XCTAssertEqual(
            arrange(split, foreground: [], showable: [a1]), [.show(a1, size: full, active: true), layoutLine()])
        XCTAssertEqual(arrangement.layout.visible, [a1])
        XCTAssertEqual(arrange(arrangement.home(), foreground: [a1]), [.hide(a1), layoutLine()])
        XCTAssertNil(arrangement.foregroundID)
    }

    // CONTRACT S11: an operator's change applies to the layout; a ratio with no split is refused.
    func testS11OperatorsChange() throws {
        XCTAssertEqual(Arrangement.sceneNames(in: .split("a", "b", ratio: 0.3)), ["a", "b"])
        XCTAssertEqual(Arrangement.sceneNames(in: .pictureInPicture("a")), ["a"])
        XCTAssertEqual(Arrangement.sceneNames(in: .hideSlideOver), [])
        XCTAssertThrowsError(try arrangement.applying(.ratio(0.3), to: []).get())
        let next = try arrangement.applying(.split("a", "b", ratio: 0.3), to: [a1, b1]).get()
        XCTAssertEqual(next.main, .split(a1, b1, ratio: 0.3))
    }

    /// `a1` and `b1` by their sessions, as `GuestDirectory.scene(named:)` reads names.
    private func found(_ name: String) -> Result<SceneRef, HostCommandError> {
        [a1, b1].first { $0.session == name }.map { .success($0) } ?? .failure(.notFound("no scene \(name)"))
    }

    private func refusal(of change: LayoutChange) -> String? {
        guard case .failure(let error) = Arrangement.scenes(of: change, find: found(_:)) else { return nil }
        return error.description
    }

    // CONTRACT S11: the scenes an operator's change names, found as the core reads names; a ratio
    // out of range, a scene not found, or a split of one scene with itself is refused, the first
    // of them said.
    func testS11ScenesOfAChange() throws {
        XCTAssertEqual(try Arrangement.scenes(of: .split("a1", "b1", ratio: 0.5), find: found(_:)).get(), [a1, b1])
        XCTAssertEqual(try Arrangement.scenes(of: .hideSlideOver, find: found(_:)).get(), [])
        XCTAssertEqual(refusal(of: .split("a1", "zz", ratio: 0.95)), "ratio 0.95 is out of range (0.1 to 0.9)")
        XCTAssertEqual(refusal(of: .split("zz", "a1", ratio: 0.5)), "no scene zz")
        XCTAssertEqual(refusal(of: .split("a1", "a1", ratio: 0.5)), "a split needs two different scenes")
    }

    // CONTRACT S3, S10: a guest comes to the foreground with the scene asked, or else its primary
    // scene that went to background last; a session is shown beside the scene of a connection.
    func testS3S10ForegroundAndPresentingASession() throws {
        var older = SceneRecord(sessionID: "a1", role: .primary)
        older.backgroundSince = .seconds(1)
        var newer = SceneRecord(sessionID: "a2", role: .primary, handle: 6)
        newer.backgroundSince = .seconds(2)
        let auxiliary = SceneRecord(sessionID: "a3", role: .auxiliary)
        XCTAssertEqual(arrangement.foreground(of: "org.test.a", [older, newer, auxiliary])?.main, .fullScreen(a2))
        XCTAssertEqual(
            arrangement.foreground(of: "org.test.a", [older, newer, auxiliary], scene: 0)?.main, .fullScreen(a1))
        XCTAssertNil(arrangement.foreground(of: "org.test.a", []))
        _ = arrange(try XCTUnwrap(arrangement.foreground(of: "org.test.a", [older, newer])), foreground: [])
        let guest = GuestSceneFacts(
            id: "org.test.a", phase: .running, stopped: false, mayOpenScene: true, scenes: [older, newer])
        XCTAssertNil(arrangement.presenting("zz", of: guest, style: .standard, beside: 6))
        XCTAssertEqual(
            arrangement.presenting("a1", of: guest, style: .standard, beside: 6)?.main, .split(a2, a1, ratio: 0.5))
    }
}
