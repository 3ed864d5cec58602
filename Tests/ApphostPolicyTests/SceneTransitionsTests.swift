import ApphostModel
import ApphostPolicyTesting
import ApphostVocabulary
import Foundation
import XCTest

@testable import ApphostPolicy

/// The order of a scene's callbacks on its own (CONTRACT S1 to S5): the steps from one state to
/// another, each taken where the one before left the scene.
final class SceneTransitionsTests: XCTestCase {
    private func path(from start: SceneState, to target: SceneState) -> [SceneTransitions.Step] {
        var state = start
        var steps: [SceneTransitions.Step] = []
        while let step = SceneTransitions.next(from: state, to: target) {
            steps.append(step)
            switch step {
            // A foreground connection goes on through will-enter-foreground (S2).
            case .connect(let initial):
                if initial == .background {
                    state = .background
                } else {
                    steps.append(.callback(.willEnterForeground, to: .foregroundInactive))
                    state = .foregroundInactive
                }
            case .callback(_, let next): state = next
            }
            XCTAssertLessThan(steps.count, 5, "a path ends")
            if steps.count >= 5 { break }
        }
        return steps
    }

    // CONTRACT S2: a scene the user asked for connects, enters the foreground, becomes active; one
    // connected into background is done at will-connect.
    func testS2Connecting() {
        XCTAssertEqual(
            path(from: .unattached, to: .foregroundActive),
            [
                .connect(into: .foregroundInactive), .callback(.willEnterForeground, to: .foregroundInactive),
                .callback(.didBecomeActive, to: .foregroundActive),
            ])
        XCTAssertEqual(path(from: .unattached, to: .background), [.connect(into: .background)])
    }

    // CONTRACT S3, S4, S5: switching away resigns active, then enters background; an interruption
    // resigns active only; returning enters the foreground, then becomes active.
    func testS3S4S5Orders() {
        XCTAssertEqual(
            path(from: .foregroundActive, to: .background),
            [.callback(.willResignActive, to: .foregroundInactive), .callback(.didEnterBackground, to: .background)])
        XCTAssertEqual(
            path(from: .foregroundActive, to: .foregroundInactive),
            [.callback(.willResignActive, to: .foregroundInactive)])
        XCTAssertEqual(
            path(from: .background, to: .foregroundActive),
            [
                .callback(.willEnterForeground, to: .foregroundInactive),
                .callback(.didBecomeActive, to: .foregroundActive),
            ])
        XCTAssertEqual(path(from: .background, to: .background), [])
    }

    // CONTRACT S2: every connection has a handle of its own, from 1.
    func testS2HandlesAreUnique() {
        var transitions = SceneTransitions()
        XCTAssertEqual((0..<3).map { _ in transitions.newConnection() }, [1, 2, 3])
    }

    // MARK: Moves: the effects of one move, in order

    private let clock = ManualClock()
    private let running = MoveFacts(appState: .background, followsBackground: true)
    private let full = SceneSize(width: 1920, height: 1080, sizeClass: .regular)

    private func scene(_ session: String, _ state: SceneState = .unattached, handle: SceneHandle? = nil) -> SceneRecord
    {
        var scene = SceneRecord(sessionID: session, role: .primary, handle: handle, state: state)
        scene.savedState = Data(session.utf8)
        return scene
    }

    private func connection(_ handle: SceneHandle, _ session: String, _ initial: SceneState) -> GuestCall {
        .sceneWillConnect(
            SceneConnection(
                scene: handle, sessionID: session, role: .primary, initialState: initial,
                restorationData: Data(session.utf8)))
    }

    // CONTRACT S2, S6, X5: a scene connected into background is background before will-connect,
    // which carries its saved state; its runtime hears whose saves fail; it notes when it went to
    // background and has the limit checked last. The app state does not change: no effect of it.
    func testS2ConnectingIntoBackground() {
        var transitions = SceneTransitions()
        var scenes = [scene("s1")]
        scenes[0].saveFailureTold = true
        clock.advance(by: .seconds(3))
        let effects = transitions.move(
            0, of: &scenes, running, to: .background, reason: .automatic, at: clock.uptime())
        XCTAssertEqual(
            effects,
            [
                .state(session: "s1", .background, reason: .automatic),
                .deliver(connection(1, "s1", .background), sceneState: .background), .tellSaveStatus,
                .limitBackground,
            ])
        XCTAssertEqual(scenes[0].handle, 1)
        XCTAssertEqual(scenes[0].state, .unattached, "the core sets the state, as `.state` says, in order")
        XCTAssertEqual(scenes[0].backgroundSince, .seconds(3))
        XCTAssertFalse(scenes[0].saveFailureTold, "a new connection's runtime starts with its saves taken to work")
    }

    // CONTRACT S2, S5, S11, B2, A1: a scene the user asked for connects, enters the foreground
    // (the budget ends first, then it learns its size, then will-enter-foreground) and becomes
    // active; the app state follows each step it changes.
    func testS2S5ConnectingIntoTheForeground() {
        var transitions = SceneTransitions()
        var scenes = [scene("s1")]
        let effects = transitions.move(
            0, of: &scenes, running, to: .shown(size: full, active: true), reason: .requested, at: clock.uptime())
        XCTAssertEqual(
            effects,
            [
                .deliver(connection(1, "s1", .foregroundInactive), sceneState: .unattached), .tellSaveStatus,
                .state(session: "s1", .foregroundInactive, reason: .requested), .background(entered: false),
                .record(.sceneSize, scene: 1, session: "s1", to: full.description),
                .deliver(.sceneSize(1, full), sceneState: .foregroundInactive),
                .deliver(.scene(1, .willEnterForeground), sceneState: .foregroundInactive),
                .appState(from: .background, reason: .requested),
                .state(session: "s1", .foregroundActive, reason: .requested),
                .deliver(.scene(1, .didBecomeActive), sceneState: .foregroundActive),
                .appState(from: .inactive, reason: .requested),
            ])
        XCTAssertEqual(scenes[0].sizeSent, full)
    }

    // CONTRACT S3, B2, S6: switching away resigns active, then enters background, where the
    // budget starts before did-enter-background; a guest whose other scene stays in the
    // foreground stays there, and no budget starts.
    func testS3LeavingTheForeground() {
        var transitions = SceneTransitions()
        var scenes = [scene("s1", .foregroundActive, handle: 4), scene("s2", .background, handle: 5)]
        let facts = MoveFacts(appState: .active, followsBackground: true)
        XCTAssertEqual(
            transitions.move(0, of: &scenes, facts, to: .background, reason: .requested, at: clock.uptime()),
            [
                .state(session: "s1", .foregroundInactive, reason: .requested),
                .deliver(.scene(4, .willResignActive), sceneState: .foregroundInactive),
                .appState(from: .active, reason: .requested),
                .state(session: "s1", .background, reason: .requested), .background(entered: true),
                .deliver(.scene(4, .didEnterBackground), sceneState: .background),
                .appState(from: .inactive, reason: .requested), .limitBackground,
            ])
        scenes = [scene("s1", .foregroundActive, handle: 4), scene("s2", .foregroundInactive, handle: 5)]
        let effects = transitions.move(0, of: &scenes, facts, to: .background, reason: .requested, at: clock.uptime())
        XCTAssertFalse(effects.contains(.background(entered: true)))
        XCTAssertEqual(
            effects.filter { if case .appState = $0 { true } else { false } },
            [
                .appState(from: .active, reason: .requested)
            ])
    }

    // CONTRACT B1, B7: a guest whose background work has ended, or that is stopped, gets no
    // budget as it moves; a suspended guest's app state does not follow its scenes.
    func testB1NoBudgetOnceWorkEnded() {
        var transitions = SceneTransitions()
        var scenes = [scene("s1", .foregroundInactive, handle: 2)]
        let ended = MoveFacts(appState: .inactive, followsBackground: false)
        let effects = transitions.move(0, of: &scenes, ended, to: .background, reason: .requested, at: .zero)
        XCTAssertFalse(effects.contains(.background(entered: true)))
        XCTAssertTrue(effects.contains(.appState(from: .inactive, reason: .requested)))
        let suspended = MoveFacts(appState: .suspended, followsBackground: false)
        scenes = [scene("s1", .foregroundInactive, handle: 2)]
        XCTAssertFalse(
            transitions.move(0, of: &scenes, suspended, to: .background, reason: .requested, at: .zero).contains {
                if case .appState = $0 { true } else { false }
            })
    }

    // CONTRACT S11, S3, S4: what the arrangement says of one scene: hidden, a foreground scene
    // goes to background, any other stays as it is; shown, it gets its size and, already in the
    // foreground, only hears its new size; covered, it resigns active only.
    func testS11ArrangedScenes() {
        var transitions = SceneTransitions()
        var scenes = [scene("s1")]
        let facts = MoveFacts(appState: .background, followsBackground: true)
        XCTAssertEqual(
            transitions.move(0, of: &scenes, facts, to: .hidden, reason: .requested, at: .zero), [])
        scenes = [scene("s1", .foregroundActive, handle: 3)]
        scenes[0].size = full
        scenes[0].sizeSent = full
        let half = SceneSize(width: 960, height: 1080, sizeClass: .regular)
        let active = MoveFacts(appState: .active, followsBackground: true)
        XCTAssertEqual(
            transitions.move(
                0, of: &scenes, active, to: .shown(size: half, active: true), reason: .requested, at: .zero),
            [
                .record(.sceneSize, scene: 3, session: "s1", to: half.description),
                .deliver(.sceneSize(3, half), sceneState: .foregroundActive),
            ])
        XCTAssertEqual(
            transitions.move(
                0, of: &scenes, active, to: .shown(size: half, active: false), reason: .requested, at: .zero),
            [
                .state(session: "s1", .foregroundInactive, reason: .requested),
                .deliver(.scene(3, .willResignActive), sceneState: .foregroundInactive),
                .appState(from: .active, reason: .requested),
            ])
        scenes[0].state = .foregroundInactive  // as the core set it
        XCTAssertEqual(
            transitions.move(0, of: &scenes, active, to: .hidden, reason: .requested, at: .zero).first,
            .state(session: "s1", .background, reason: .requested))
    }
}
