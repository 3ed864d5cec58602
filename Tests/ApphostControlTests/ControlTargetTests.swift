import ApphostControl
import ApphostControlTesting
import ApphostModel
import ApphostVocabulary
import XCTest

/// The control verbs applied to a fake target, with no host: what each asks of the host, in which
/// order, what waits for what (shutdown waits for operations; `ps` encodes away from the host
/// queue), and the reply line it makes of the answer, refusals' codes among them (CONTRACT O1).
final class ControlTargetTests: XCTestCase {
    /// The reply lines a command sent so far.
    private final class Replies: @unchecked Sendable {
        var lines: [String] = []
    }

    private func respond(_ command: some ControlCommand, on target: FakeControlTarget) -> Replies {
        let replies = Replies()
        command.respond(on: target) { replies.lines.append($0) }
        return replies
    }

    private func message(_ text: String) -> String { ControlReply.message(text).line }

    /// The verbs that read the host and change nothing are the ones answered while it shuts down.
    func testOnlyTheQueriesAreAnsweredDuringShutdown() {
        XCTAssertEqual(
            ControlCommands.all.filter { $0.answeredDuringShutdown }.map { $0.name }, ["ps", "metrics", "host"])
    }

    // CONTRACT O1: a guest nobody loaded is not-found, refused before any operation begins.
    func testO1AnUnknownGuestIsNotFoundBeforeAnyOperation() {
        let target = FakeControlTarget()
        let replies = respond(SuspendCommand(guest: "nobody"), on: target)
        XCTAssertEqual(replies.lines, [#"{"code":"not-found","error":"no guest nobody","ok":false}"#])
        XCTAssertEqual(target.calls, ["guestID nobody"])
        XCTAssertEqual(target.operationsBegun, 0)
    }

    func testAGuestVerbNamesItsGuestThenRepliesBeforeItsOperationEnds() {
        let target = FakeControlTarget()
        target.names = ["Notes": "org.example.notes"]
        target.holding = true
        let replies = respond(SuspendCommand(guest: "Notes"), on: target)
        XCTAssertEqual(target.calls, ["guestID Notes", "suspend org.example.notes"])
        XCTAssertEqual(replies.lines, [])
        XCTAssertEqual(target.operationsInFlight, 1, "shutdown waits for the suspension under way")
        target.releaseHeld()
        XCTAssertEqual(replies.lines, [message("org.example.notes is suspended")])
        XCTAssertEqual(replies.lines, [#"{"ok":true,"result":{"message":"org.example.notes is suspended"}}"#])
        XCTAssertEqual(target.operationsInFlight, 0)
    }

    func testEachGuestVerbAsksForItsOwnOperation() {
        let target = FakeControlTarget()
        target.names = ["n": "org.example.notes"]
        target.terminationTrouble = "it crashed in will_terminate"
        let replies = Replies()
        let commands: [any ControlCommand] = [
            SwitchCommand(guest: "n"), OpenCommand(guest: "n"), ResumeCommand(guest: "n"),
            TerminateCommand(guest: "n"),
        ]
        for command in commands { command.respond(on: target) { replies.lines.append($0) } }
        XCTAssertEqual(
            target.calls.filter { !$0.hasPrefix("guestID") },
            [
                "switchTo org.example.notes", "openScene org.example.notes", "resume org.example.notes",
                "terminate org.example.notes",
            ])
        XCTAssertEqual(
            replies.lines,
            [
                message("org.example.notes is in the foreground"),
                message("opened a window of org.example.notes: session 0123abcd"),
                message("org.example.notes is running in background"),
                message("org.example.notes terminated; it crashed in will_terminate"),
            ])
        XCTAssertEqual(target.operationsBegun, 4)
        XCTAssertEqual(target.operationsInFlight, 0)
    }

    // CONTRACT O1: the code of a refusal is the kind of the host's error, for every verb.
    func testO1RefusalsCarryTheKindTheHostGaveThem() {
        let cases: [(HostCommandError, any ControlCommand, String)] = [
            (HostCommandError("an alert is already shown"), AlertCommand(), "conflict"),
            (.invalid("the volume is from 0 to 1, not 2.0"), AudioVolumeCommand(volume: 0.5), "invalid"),
            (.notFound("no scene abcd"), CloseCommand(scene: "abcd"), "not-found"),
            (.notFound("no scene abcd"), LayoutCommand(.fullScreen("abcd")), "not-found"),
            (HostCommandError("no call is under way"), AudioInterruptCommand(begin: false), "conflict"),
        ]
        for (refusal, command, code) in cases {
            let target = FakeControlTarget()
            target.refusal = refusal
            let replies = Replies()
            command.respond(on: target) { replies.lines.append($0) }
            XCTAssertEqual(replies.lines.count, 1, "\(command.line)")
            XCTAssertEqual(ControlReply.code(of: replies.lines[0])?.rawValue, code, "\(command.line)")
            XCTAssertEqual(replies.lines[0], ControlReply.failure(refusal).line)
            XCTAssertEqual(target.operationsInFlight, 0, "\(command.line) left an operation open")
        }
    }

    func testHomeSaysWhoWentToBackground() {
        let notes = SceneRef(guest: "org.example.notes", session: "1a2b3c4d5e")
        let clock = SceneRef(guest: "org.example.clock", session: "9f8e7d6c")
        let target = FakeControlTarget()
        target.layout.main = .split(notes, clock, ratio: 0.5)
        XCTAssertEqual(
            respond(HomeCommand(), on: target).lines,
            [message("org.example.notes, org.example.clock went to background")])
        XCTAssertEqual(respond(HomeCommand(), on: target).lines, [message("nothing is in the foreground")])
        target.layout.pictureInPicture = clock
        XCTAssertEqual(
            respond(HomeCommand(), on: target).lines, [message("only picture in picture is shown, and it stays")])
        XCTAssertEqual(target.calls, ["home", "home", "home"])
    }

    func testALayoutChangeRepliesWithTheLayoutAsItIsThen() {
        let target = FakeControlTarget()
        target.layout.main = .fullScreen(SceneRef(guest: "org.example.notes", session: "1a2b3c4d5e"))
        let replies = respond(LayoutCommand(.fullScreen("1a2b")), on: target)
        XCTAssertEqual(target.calls, [#"changeLayout fullScreen("1a2b")"#])
        XCTAssertEqual(replies.lines, [message("layout: full screen: org.example.notes/1a2b3c4d")])
    }

    func testPsIsTakenOnTheHostQueueAndEncodedAwayFromIt() throws {
        let target = FakeControlTarget()
        target.status.foreground = "org.example.notes"
        let replies = respond(StatusCommand(), on: target)
        XCTAssertEqual(target.calls, ["controlStatus"])
        XCTAssertEqual(replies.lines, [], "the reply is made away from the host queue")
        target.runAway()
        XCTAssertEqual(replies.lines.count, 1)
        let reply = try JSONDecoder().decode(ControlReply<HostStatus>.self, from: Data(replies.lines[0].utf8))
        XCTAssertEqual(reply.result, target.status)
    }

    func testCallRepliesWithTheResultAndItsType() {
        let target = FakeControlTarget()
        target.actionResult = .int32(5)
        let replies = respond(CallCommand(guest: "calc", action: "add", words: ["2", "3"]), on: target)
        XCTAssertEqual(target.calls, [#"callAction calc add words(["2", "3"])"#])
        XCTAssertEqual(
            replies.lines, [#"{"ok":true,"result":{"action":"add","guest":"calc","result":5,"type":"i"}}"#])
    }

    func testHostBeforeItStartedIsAConflict() {
        let target = FakeControlTarget()
        XCTAssertEqual(
            respond(HostCommand(), on: target).lines,
            [#"{"code":"conflict","error":"the host has not started","ok":false}"#])
    }

    func testEventsAppliedIsRefusedWithoutAskingTheHost() {
        let target = FakeControlTarget()
        let command = EventsCommand()
        XCTAssertEqual(
            respond(command, on: target).lines,
            [ControlReply.failure(.invalid("\(command.line) cannot be answered with one reply")).line])
        XCTAssertEqual(target.calls, [])
    }
}
