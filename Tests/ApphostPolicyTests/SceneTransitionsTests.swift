import ApphostModel
import ApphostVocabulary
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
}
