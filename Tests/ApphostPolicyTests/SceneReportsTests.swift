import ApphostModel
import ApphostVocabulary
import XCTest

@testable import ApphostPolicy

/// What guests report of their connected scenes, on its own (CONTRACT N2, N3, titles): no core,
/// no channel; each input's events, and what the operator sees.
final class SceneReportsTests: XCTestCase {
    private var reports = SceneReports()
    private let scene = SceneRef(guest: "org.test.a", session: "s1")

    // CONTRACT N2: each step a person would see is recorded once; a disconnection clears it.
    func testN2LoadingProgressStepsAndDisconnection() {
        XCTAssertEqual(
            reports.loading(.fraction(0.5), of: scene, handle: 4),
            [.record(.loading, scene: 4, session: "s1", message: "50%")])
        XCTAssertEqual(reports.loading(.fraction(0.501), of: scene, handle: 4), [])
        XCTAssertEqual(reports.report(of: scene).loading, .fraction(0.501))
        reports.disconnected(scene)
        XCTAssertEqual(reports.report(of: scene), SceneReport())
    }

    // A scene's title is shown until it is cleared with an empty one.
    func testTitles() {
        XCTAssertEqual(
            reports.title("Inbox", of: scene, handle: 4), [.record(.sceneTitle, scene: 4, session: "s1", name: "Inbox")]
        )
        XCTAssertEqual(reports.report(of: scene).title, "Inbox")
        XCTAssertEqual(reports.title("", of: scene, handle: 4), [.record(.sceneTitle, scene: 4, session: "s1")])
        XCTAssertNil(reports.report(of: scene).title)
    }

    // CONTRACT N3: modals stack; dismissing one takes those above it, and the event names it;
    // one not presented is nothing; the one kept is recorded as kept and stays.
    func testN3ModalsStackAndDismissal() {
        _ = reports.modalPresented(1, style: .sheet, title: "Edit", of: scene, handle: 4)
        XCTAssertEqual(
            reports.modalPresented(2, style: .fullScreen, title: "Confirm", of: scene, handle: 4),
            [.record(.modalPresented, scene: 4, session: "s1", name: "fullScreen", message: "modal 2: Confirm")])
        let top = reports.topModal(of: scene)
        XCTAssertEqual(top?.id, 2)
        XCTAssertEqual(
            reports.modalKept(top!, of: scene, handle: 4),
            [
                .record(
                    .modalKept, scene: 4, session: "s1", name: "fullScreen",
                    message: "modal 2: Confirm: the guest keeps it")
            ])
        XCTAssertTrue(reports.presents(2, on: scene))
        XCTAssertEqual(reports.modalDismissed(9, of: scene, handle: 4, reason: .guest), [])
        XCTAssertEqual(
            reports.modalDismissed(1, of: scene, handle: 4, reason: .requested),
            [
                .record(
                    .modalDismissed, scene: 4, session: "s1", reason: .requested, name: "sheet",
                    message: "modal 1: Edit")
            ])
        XCTAssertEqual(reports.report(of: scene).modals, [])
        XCTAssertFalse(reports.presents(2, on: scene))
    }
}
