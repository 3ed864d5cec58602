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

    // MARK: Reports and the operator's dismissal, with the guest's facts

    /// Guest `org.test.a` with scene `s1`, connected as 4 in `state`, or disconnected with nil.
    private func guest(
        _ phase: GuestPhase = .running, stopped: Bool = false, state: SceneState? = .foregroundActive
    ) -> GuestSceneFacts {
        GuestSceneFacts(
            id: "org.test.a", phase: phase, stopped: stopped, mayOpenScene: true,
            scenes: [
                SceneRecord(
                    sessionID: "s1", role: .primary, handle: state == nil ? nil : 4, state: state ?? .unattached)
            ])
    }

    // CONTRACT N2, N3: a running guest's report about one of its scenes goes to that scene, by its
    // connection; one about a connection it lacks, from a guest not running, or of another
    // part's is nothing.
    func testN2N3ReportsGoToTheScene() {
        XCTAssertEqual(
            reports.report(.loadingProgress(4, .fraction(0.5)), from: guest()),
            [.record(.loading, scene: 4, session: "s1", message: "50%")])
        XCTAssertEqual(reports.report(.sceneTitleChanged(9, title: "Lost"), from: guest()), [])
        XCTAssertEqual(reports.report(.sceneTitleChanged(4, title: "Inbox"), from: guest(.launching)), [])
        XCTAssertEqual(reports.report(.notificationPosted(title: "t", body: "b"), from: guest()), [])
        XCTAssertEqual(
            reports.report(.modalPresented(4, 1, style: .sheet, title: "Edit"), from: guest()),
            [.record(.modalPresented, scene: 4, session: "s1", name: "sheet", message: "modal 1: Edit")])
        XCTAssertEqual(
            reports.report(.modalDismissed(4, 1), from: guest()),
            [.record(.modalDismissed, scene: 4, session: "s1", reason: .guest, name: "sheet", message: "modal 1: Edit")]
        )
    }

    // CONTRACT N3: the user dismisses the top modal: refused with none, or with the guest stopped;
    // the guest keeps it (0), lets it go (1: dismissed, then told), or gives no answer; a modal
    // gone meanwhile, or a scene disconnected, is gone.
    func testN3DismissalAndItsAnswers() throws {
        XCTAssertThrowsError(try reports.dismissal(of: 0, guest(), named: "s1")) {
            XCTAssertEqual(($0 as? HostCommandError)?.description, "scene s1 presents no modal")
        }
        _ = reports.modalPresented(1, style: .sheet, title: "Edit", of: scene, handle: 4)
        _ = reports.modalPresented(2, style: .fullScreen, title: "Sure?", of: scene, handle: 4)
        XCTAssertThrowsError(try reports.dismissal(of: 0, guest(stopped: true), named: "s1")) {
            XCTAssertEqual(($0 as? HostCommandError)?.description, "org.test.a is not running")
        }
        let asked = try reports.dismissal(of: 0, guest(), named: "s1")
        XCTAssertEqual(asked.call, .shouldDismissModal(4, 2))
        let (kept, keptEffects) = reports.answered(.success(0), to: asked, of: guest())
        XCTAssertEqual(try kept.get(), false)
        XCTAssertEqual(keptEffects, reports.modalKept(asked.modal, of: scene, handle: 4))
        XCTAssertThrowsError(try reports.answered(.failure(.closed), to: asked, of: guest()).0.get())
        XCTAssertThrowsError(try reports.answered(.success(-3), to: asked, of: guest()).0.get())
        XCTAssertEqual(try reports.answered(.success(1), to: asked, of: guest(state: nil)).0.get(), true)
        XCTAssertTrue(reports.presents(2, on: scene), "a disconnected scene's answer changes nothing")
        let (gone, effects) = reports.answered(.success(1), to: asked, of: guest(state: .foregroundInactive))
        XCTAssertEqual(try gone.get(), true)
        XCTAssertEqual(
            effects,
            [
                .record(
                    .modalDismissed, scene: 4, session: "s1", reason: .requested, name: "fullScreen",
                    message: "modal 2: Sure?"),
                .deliver(.didDismissModal(4, 2), sceneState: .foregroundInactive),
            ])
        XCTAssertEqual(reports.answered(.success(1), to: asked, of: guest(state: .foregroundInactive)).1, [])
    }
}
