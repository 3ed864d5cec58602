import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation
import XCTest

@testable import ApphostService

/// The control protocol's scene commands (CONTRACT S7, S9, S11, N3): what each line decodes to,
/// that every command survives its own line, and the one-line errors of the broken ones. The
/// host's answers to them are tested end to end in ApphostCLITests.
final class ControlCommandSceneTests: XCTestCase {
    private func parse(_ line: String) throws(ControlProtocolError) -> any ControlCommand {
        try ControlCommands.decode(line: Array(line.utf8))
    }

    /// Whether `line` decodes to `expected`, of its type and equal to it.
    private func assertParses<Command: ControlCommand & Equatable>(
        _ line: String, as expected: Command, file: StaticString = #filePath, line number: UInt = #line
    ) {
        do {
            let parsed = try parse(line)
            XCTAssertEqual(parsed as? Command, expected, line, file: file, line: number)
        } catch {
            XCTFail("\(line): \(error)", file: file, line: number)
        }
    }

    private func error(_ line: String) -> String? {
        do {
            let command = try parse(line)
            XCTFail("\(line) parsed as \(command)")
            return nil
        } catch {
            return error.message
        }
    }

    // MARK: Parsing

    func testSceneRequestsParse() throws {
        let cases: [(String, any ControlCommand & Equatable)] = [
            (
                #"{"command":"action","scene":"1a2b","name":"compose","payload":"to: ann"}"#,
                ActionCommand(scene: "1a2b", name: "compose", payload: "to: ann")
            ),
            (
                #"{"command":"action","scene":"3","name":"refresh"}"#,
                ActionCommand(scene: "3", name: "refresh", payload: "")
            ),
            (#"{"command":"close","scene":"1a2b3c4d"}"#, CloseCommand(scene: "1a2b3c4d")),
            (#"{"command":"dismiss","scene":"7"}"#, DismissCommand(scene: "7")),
            (#"{"command":"layout","layout":"full","scene":"1a2b"}"#, LayoutCommand(.fullScreen("1a2b"))),
            (
                #"{"command":"layout","layout":"split","scene":"1a2b","scene2":"3c4d"}"#,
                LayoutCommand(.split("1a2b", "3c4d", ratio: 0.5))
            ),
            (
                #"{"command":"layout","layout":"split","scene":"1a2b","scene2":"3c4d","ratio":0.3}"#,
                LayoutCommand(.split("1a2b", "3c4d", ratio: 0.3))
            ),
            (#"{"command":"layout","layout":"ratio","ratio":0.7}"#, LayoutCommand(.ratio(0.7))),
            (#"{"command":"layout","layout":"slide-over","scene":"5"}"#, LayoutCommand(.slideOver("5"))),
            (#"{"command":"layout","layout":"hide-slide-over"}"#, LayoutCommand(.hideSlideOver)),
            (#"{"command":"layout","layout":"pip","scene":"5"}"#, LayoutCommand(.pictureInPicture("5"))),
            (#"{"command":"layout","layout":"close-pip"}"#, LayoutCommand(.closePictureInPicture)),
        ]
        for (line, expected) in cases {
            assertParses(line, as: expected)
        }
    }

    // Members of layout a mode does not use are ignored; a member the verb does not have at all
    // is refused (CONTRACT O1: it was ignored as well, so a misspelt one did nothing).
    func testFieldsAModeDoesNotUseAreIgnored() throws {
        assertParses(
            #"{"command":"layout","layout":"hide-slide-over","scene":"5","ratio":0.4}"#,
            as: LayoutCommand(.hideSlideOver))
        XCTAssertEqual(
            error(#"{"command":"close","scene":"5","guest":"org.x"}"#),
            #"close has no member "guest" (its members: "scene")"#)
    }

    // The ratio's range is one rule, LayoutChange.validate, which the core applies and the
    // command type too: the decoder (on the socket, over HTTP and in ctl before it sends)
    // refuses a ratio out of range with the core's own line, as a bad request.
    func testOutOfRangeRatiosAreRefusedWithTheCoresLine() throws {
        XCTAssertEqual(
            error(#"{"command":"layout","layout":"ratio","ratio":2}"#), "ratio 2.0 is out of range (0.1 to 0.9)")
        XCTAssertEqual(
            error(#"{"command":"layout","layout":"split","scene":"1","scene2":"2","ratio":0.05}"#),
            "ratio 0.05 is out of range (0.1 to 0.9)")
        XCTAssertThrowsError(try LayoutChange.ratio(2).validate()) { error in
            XCTAssertEqual(error as? HostCommandError, .invalid("ratio 2.0 is out of range (0.1 to 0.9)"))
        }
    }

    // MARK: Round trip

    func testSceneRequestsSurviveTheirOwnLine() throws {
        let requests: [any ControlCommand & Equatable] = [
            ActionCommand(scene: "1a2b", name: "compose", payload: "to: \"ann\"\nline two"),
            ActionCommand(scene: "3", name: "refresh", payload: ""),
            ActionCommand(scene: "3", name: "snowman ☃", payload: "ünïcödé"),
            CloseCommand(scene: "1a2b3c4d-0000"),
            DismissCommand(scene: "7"),
            LayoutCommand(.fullScreen("1a2b")),
            LayoutCommand(.split("1a2b", "3c4d", ratio: 0.5)),
            LayoutCommand(.split("1a2b", "3c4d", ratio: 0.125)),
            LayoutCommand(.ratio(0.9)),
            LayoutCommand(.slideOver("5")),
            LayoutCommand(.hideSlideOver),
            LayoutCommand(.pictureInPicture("5")),
            LayoutCommand(.closePictureInPicture),
        ]
        for request in requests {
            let line = request.line
            XCTAssertFalse(line.contains("\n"), "one line: \(line)")
            assertParses(line, as: request)
        }
    }

    func testSceneRequestLinesCarryOnlyTheirFields() {
        XCTAssertEqual(
            ActionCommand(scene: "3", name: "go", payload: "x").line,
            #"{"command":"action","name":"go","payload":"x","scene":"3"}"#)
        XCTAssertEqual(CloseCommand(scene: "3").line, #"{"command":"close","scene":"3"}"#)
        XCTAssertEqual(DismissCommand(scene: "3").line, #"{"command":"dismiss","scene":"3"}"#)
        XCTAssertEqual(
            LayoutCommand(.split("1", "2", ratio: 0.25)).line,
            #"{"command":"layout","layout":"split","ratio":0.25,"scene":"1","scene2":"2"}"#)
        XCTAssertEqual(
            LayoutCommand(.hideSlideOver).line, #"{"command":"layout","layout":"hide-slide-over"}"#)
        XCTAssertEqual(
            LayoutCommand(.closePictureInPicture).line, #"{"command":"layout","layout":"close-pip"}"#)
    }

    // MARK: Errors

    func testBrokenSceneRequestsGetOneLineErrors() {
        let needsScene = #"needs a "scene" (a session id, a prefix of one, or a handle)"#
        let modes = "full, split, ratio, slide-over, hide-slide-over, pip, close-pip"
        let cases: [(String, String)] = [
            (#"{"command":"action","name":"go"}"#, "action " + needsScene),
            (#"{"command":"action","scene":"","name":"go"}"#, "action " + needsScene),
            (#"{"command":"action","scene":"3"}"#, #"action needs a "name""#),
            (#"{"command":"action","scene":"3","name":""}"#, #"action needs a "name""#),
            (#"{"command":"close"}"#, "close " + needsScene),
            (#"{"command":"dismiss","guest":"org.x"}"#, "dismiss " + needsScene),
            (#"{"command":"layout"}"#, #"layout's "layout" is one of \#(modes), not """#),
            (#"{"command":"layout","layout":"tile"}"#, #"layout's "layout" is one of \#(modes), not "tile""#),
            (#"{"command":"layout","layout":"full"}"#, "layout " + needsScene),
            (#"{"command":"layout","layout":"pip"}"#, "layout " + needsScene),
            (#"{"command":"layout","layout":"slide-over"}"#, "layout " + needsScene),
            (#"{"command":"layout","layout":"split","scene":"1"}"#, #"layout split needs a "scene2""#),
            (#"{"command":"layout","layout":"split","scene2":"2"}"#, "layout " + needsScene),
            (#"{"command":"layout","layout":"ratio"}"#, #"layout ratio needs a "ratio""#),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(error(line), expected, line)
        }
    }

    // A field of the wrong type is refused with its name, what it must be and what it was
    // (CONTRACT O1; it was "malformed request: expected one JSON object ...").
    func testFieldsOfTheWrongTypeAreNamed() {
        let cases = [
            (#"{"command":"layout","layout":"ratio","ratio":"half"}"#, #""ratio" must be a number, not a string"#),
            (
                #"{"command":"layout","layout":"split","scene":"1","scene2":"2","ratio":[0.5]}"#,
                #""ratio" must be a number, not an array"#
            ),
            (#"{"command":"action","scene":3,"name":"go"}"#, #""scene" must be a string, not a number"#),
            (
                #"{"command":"action","scene":"3","name":"go","payload":{"a":1}}"#,
                #""payload" must be a string, not an object"#
            ),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(error(line), expected, line)
        }
    }

    func testUnknownCommandsListTheSceneCommands() {
        let message = error(#"{"command":"zoom"}"#) ?? ""
        XCTAssertFalse(message.contains("\n"))
        for name in ["action", "close", "dismiss", "layout"] {
            XCTAssertTrue(ControlCommands.names.contains(name), name)
            XCTAssertTrue(message.contains(name), message)
        }
    }

    // MARK: Status

    // `ctl ps --json` and the CLI read the status through ControlReply<HostStatus>: the display,
    // the layout and each scene's size, place, progress and modals come back as they went.
    func testStatusWithLayoutAndSceneDetailsDecodesAsAReply() throws {
        let notes = SceneRef(guest: "org.example.notes", session: "1a2b3c4d-5e6f-4000-8000-000000000001")
        let second = SceneRef(guest: "org.example.notes", session: "9f8e7d6c-5e6f-4000-8000-000000000002")
        let mail = SceneRef(guest: "org.example.mail", session: "0b0b0b0b-5e6f-4000-8000-000000000003")
        var layout = Layout()
        layout.main = .split(notes, second, ratio: 0.3)
        layout.slideOver = [mail]
        layout.pictureInPicture = SceneRef(guest: "org.example.video", session: "0c0c0c0c")
        layout.prominent = SceneRef(guest: "org.example.login", session: "0d0d0d0d")
        let scenes = [
            SceneStatus(
                handle: 4, session: notes.session, role: .primary, state: .foregroundInactive, savedBytes: 12,
                size: SceneSize(width: 480, height: 900, sizeClass: .compact), placement: "split left",
                loading: .fraction(0.42),
                modals: [
                    ModalStatus(id: 1, style: .sheet, title: "Compose"),
                    ModalStatus(id: 2, style: .fullScreen, title: "Discard changes?"),
                ]),
            SceneStatus(
                handle: nil, session: second.session, role: .auxiliary, state: .unattached, savedBytes: nil,
                size: nil, placement: nil, loading: .indeterminate, modals: []),
            SceneStatus(
                handle: 5, session: mail.session, role: .primary, state: .background, savedBytes: 0,
                size: SceneSize(width: 1120, height: 900, sizeClass: .regular), placement: nil, loading: .none,
                modals: []),
        ]
        let guest = GuestStatus(
            id: notes.guest, name: "Notes", version: "1.0", path: "/guests/libnotes.so", appState: .inactive,
            phase: .running, lastReason: .requested, since: Date(timeIntervalSince1970: 1_700_000_000),
            scenes: scenes, restart: RestartStatus(policy: .never, restarts: 0, gaveUp: false),
            backgroundTimeRemaining: nil, tasks: [], suspension: nil)
        let status = HostStatus(
            foreground: notes.guest, alert: false, guests: [guest], display: "1600x900", layout: layout)

        let line = ControlReply.success(status).line
        XCTAssertFalse(line.contains("\n"))
        let reply = try ControlCoding.decode(ControlReply<HostStatus>.self, from: line)
        XCTAssertTrue(reply.ok)
        XCTAssertEqual(reply.result, status)
        XCTAssertEqual(reply.result?.display, "1600x900")
        XCTAssertEqual(reply.result?.layout.placement(of: second), "split right")
        XCTAssertEqual(reply.result?.guests.first?.scenes.first?.modals.last?.title, "Discard changes?")
    }
}
