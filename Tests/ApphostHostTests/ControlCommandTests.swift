import ApphostControl
import ApphostVocabulary
import XCTest

@testable import ApphostService

/// The control protocol's verbs as types (CONTRACT O1: the same checks and the same answer
/// through every transport): one registry of names, each verb's line, and the one-line errors
/// that decoding and validation give, whatever the transport.
final class ControlCommandTests: XCTestCase {
    private func error(_ line: String) -> String? {
        do {
            let command = try ControlCommands.decode(line: Array(line.utf8))
            XCTFail("\(line) parsed as \(command)")
            return nil
        } catch {
            return error.message
        }
    }

    // CONTRACT X7: a number JSON cannot carry never fails a whole reply. The host keeps what it
    // reports finite, but a non-finite Double that slips into a reply all the same is written as
    // the string JavaScript prints for it, and the CLI's decoder reads it back.
    func testX7ANonFiniteNumberDoesNotFailTheReply() throws {
        struct Reading: Codable, Equatable {
            var peak: Double
            var rms: Double
            var floor: Double
        }
        let reading = Reading(peak: .infinity, rms: -.infinity, floor: -120)
        let line = ControlCoding.line(reading)
        XCTAssertEqual(line, #"{"floor":-120,"peak":"Infinity","rms":"-Infinity"}"#)
        XCTAssertEqual(try ControlCoding.decode(Reading.self, from: line), reading)
        let nan = ControlCoding.line(Reading(peak: .nan, rms: 0, floor: 0))
        XCTAssertTrue(nan.contains(#""peak":"NaN""#), nan)
    }

    func testTheVerbsAreTheProtocolsNamesInTheirOrder() {
        XCTAssertEqual(
            ControlCommands.names,
            [
                "ps", "switch", "open", "home", "alert", "terminate", "suspend", "resume", "events", "memory-warning",
                "action", "close", "dismiss", "layout", "audio-silence", "audio-volume", "audio-route",
                "audio-interrupt", "audio-reset", "call", "metrics", "host",
            ])
    }

    func testEveryVerbSurvivesItsOwnLine() throws {
        let commands: [any ControlCommand] = [
            StatusCommand(), SwitchCommand(guest: "org.example.notes"), OpenCommand(guest: "Notes"), HomeCommand(),
            AlertCommand(), AlertCommand(dismiss: true), TerminateCommand(guest: "a.b"), SuspendCommand(guest: "a.b"),
            ResumeCommand(guest: "a.b"), EventsCommand(),
            EventsCommand(after: "17.3", guests: ["a.b"], kinds: ["log", "app-state"], follow: false),
            MemoryWarningCommand(level: .critical),
            ActionCommand(scene: "3", name: "go", payload: "x"), CloseCommand(scene: "3"), DismissCommand(scene: "3"),
            LayoutCommand(.split("1", "2", ratio: 0.25)), AudioSilenceCommand(on: true),
            AudioVolumeCommand(volume: 0.5),
            AudioRouteCommand(plug: false, device: .lineOut), AudioInterruptCommand(begin: false, shouldResume: true),
            AudioResetCommand(), MetricsCommand(),
        ]
        for command in commands {
            let decoded = try ControlCommands.decode(line: Array(command.line.utf8))
            XCTAssertTrue(type(of: decoded) == type(of: command), command.line)
            XCTAssertEqual(decoded.line, command.line)
        }
    }

    // CONTRACT O1: a member a verb does not have is refused, for every verb (a misspelt one was
    // ignored: {"gest":...} did what {} does), whatever its decoding: synthesized, or its own
    // (layout, audio-route, action, call); and one of the wrong type is named with its type.
    func testO1UnknownMembersAndWrongTypesAreNamed() throws {
        let commands: [any ControlCommand] = [
            StatusCommand(), SwitchCommand(guest: "org.example.notes"), HomeCommand(), AlertCommand(dismiss: true),
            SuspendCommand(guest: "a.b"), MemoryWarningCommand(level: .critical),
            ActionCommand(scene: "3", name: "go", payload: "x"), CloseCommand(scene: "3"),
            LayoutCommand(.split("1", "2", ratio: 0.25)), AudioVolumeCommand(volume: 0.5),
            AudioRouteCommand(plug: false, device: .lineOut), AudioInterruptCommand(begin: false, shouldResume: true),
            CallCommand(guest: "a.b", action: "go", arguments: [.integer(1)]), MetricsCommand(), HostCommand(),
        ]
        for command in commands {
            let line = String(command.line.dropLast()) + #","zzz":1}"#
            let message = try XCTUnwrap(error(line), line)
            XCTAssertTrue(message.hasPrefix(#"\#(type(of: command).name) has no member "zzz" ("#), message)
        }
        XCTAssertEqual(
            error(#"{"command":"switch","guest":"a","gest":"b"}"#),
            #"switch has no member "gest" (its members: "guest")"#)
        XCTAssertEqual(error(#"{"command":"home","x":null}"#), #"home has no member "x" (it takes none)"#)
        // A member a mode of layout does not use is still one of layout's.
        XCTAssertNotNil(
            try? ControlCommands.decode(
                line: Array(#"{"command":"layout","layout":"full","scene":"1","ratio":2}"#.utf8)))

        XCTAssertEqual(
            error(#"{"command":"audio-volume","volume":"loud"}"#), #""volume" must be a number, not a string"#)
        XCTAssertEqual(error(#"{"command":"audio-silence","on":"yes"}"#), #""on" must be true or false, not a string"#)
        XCTAssertEqual(
            error(#"{"command":"layout","layout":"ratio","ratio":[1]}"#), #""ratio" must be a number, not an array"#)
        XCTAssertEqual(
            error(#"{"command":"call","guest":"a","action":"b","words":["1",2]}"#),
            #""words"[1] must be a string, not a number"#)
        XCTAssertEqual(
            error(#"{"command":"call","guest":"a","action":"b","words":{"a":1}}"#),
            #""words" must be an array, not an object"#)
    }

    func testLinesCarryOnlyTheirMembers() {
        XCTAssertEqual(StatusCommand().line, #"{"command":"ps"}"#)
        XCTAssertEqual(MetricsCommand().line, #"{"command":"metrics"}"#)
        XCTAssertEqual(SwitchCommand(guest: "a.b").line, #"{"command":"switch","guest":"a.b"}"#)
        XCTAssertEqual(AlertCommand().line, #"{"command":"alert"}"#)
        XCTAssertEqual(AlertCommand(dismiss: true).line, #"{"command":"alert","dismiss":true}"#)
        XCTAssertEqual(MemoryWarningCommand().line, #"{"command":"memory-warning","level":"warning"}"#)
        XCTAssertEqual(EventsCommand().line, #"{"command":"events"}"#)
    }

    func testDefaultsOfOptionalMembers() throws {
        let alert = try ControlCommands.decode(line: Array(#"{"command":"alert","dismiss":false}"#.utf8))
        XCTAssertEqual(alert as? AlertCommand, AlertCommand(dismiss: false))
        let memory = try ControlCommands.decode(line: Array(#"{"command":"memory-warning"}"#.utf8))
        XCTAssertEqual(memory as? MemoryWarningCommand, MemoryWarningCommand(level: .warning))
    }

    // A guest verb needs a guest, and says what it may be: missing, null and empty alike.
    func testGuestVerbsNeedAGuest() {
        for verb in ["switch", "open", "terminate", "suspend", "resume"] {
            for members in ["", #","guest":null"#, #","guest":"""#] {
                XCTAssertEqual(
                    error(#"{"command":"\#(verb)"\#(members)}"#), #"\#(verb) needs a "guest" (an id or a name)"#,
                    "\(verb) \(members)")
            }
        }
    }

    // CONTRACT O1: an events request's position names its run, and its filters name known kinds;
    // validated here for the control socket and HTTP alike.
    func testO1EventsRequestsAreValidated() throws {
        let request = try ControlCommands.decode(
            line: Array(#"{"command":"events","after":"17.3","guests":["a.b"],"kinds":["log,app-state"]}"#.utf8))
        let events = try XCTUnwrap(request as? EventsCommand)
        XCTAssertEqual(try events.start, .after(EventPosition(run: 17, number: 3)))
        XCTAssertEqual(try events.filter, EventFilter(guests: ["a.b"], kinds: [.log, .appState]))
        XCTAssertTrue(events.isLive)
        XCTAssertEqual(
            try (ControlCommands.decode(line: Array(#"{"command":"events","after":0}"#.utf8)) as? EventsCommand)?.start,
            .oldest)
        XCTAssertEqual(
            error(#"{"command":"events","after":5}"#),
            "a bare position (5) cannot tell this run of the host from another: give RUN.POSITION as the event stream's ids and ctl events show them, or 0 for everything the host holds"
        )
        XCTAssertEqual(
            error(#"{"command":"events","kinds":["lgo"]}"#)?.hasPrefix(#"unknown event kind "lgo" (known: "#), true)
        XCTAssertEqual(error(#"{"command":"events","guests":[""]}"#), "an empty guest id in the event filter")
    }

    // The audio verbs' one-line errors (C9, C10, C12).
    func testAudioVerbsRefuseBadValues() {
        XCTAssertEqual(error(#"{"command":"audio-volume","volume":1.5}"#), "the volume is from 0 to 1, not 1.5")
        XCTAssertEqual(
            error(#"{"command":"audio-route","plug":true,"device":"radio"}"#),
            "unknown audio device \"radio\" (known: speaker, built-in-mic, headphones, bluetooth, line-out, line-in)")
        XCTAssertEqual(error(#"{"command":"audio-route","plug":true}"#), #"audio-route needs a "device""#)
        XCTAssertEqual(
            error(#"{"command":"audio-interrupt","begin":true,"shouldResume":true}"#),
            "shouldResume is for the end of an interruption")
    }

    func testBadLinesGetTheProtocolsErrors() {
        XCTAssertEqual(
            error("not json"),
            #"malformed request: expected one JSON object with a "command" string, such as {"command":"ps"}"#)
        XCTAssertEqual(error(#"{"command":5}"#)?.hasPrefix("malformed request"), true)
        // A member of the wrong type is named, with what it must be (CONTRACT O1).
        XCTAssertEqual(error(#"{"command":"switch","guest":5}"#), #""guest" must be a string, not a number"#)
        XCTAssertEqual(
            error(#"{"command":"fly"}"#),
            #"unknown command "fly" (known: \#(ControlCommands.names.joined(separator: ", ")))"#)
        XCTAssertEqual(
            error(#"{"command":"memory-warning","level":"dire"}"#),
            #"memory-warning's "level" is warning or critical, not "dire""#)
        // Without a name or a scene, an action hears about the name first, as it always did.
        XCTAssertEqual(error(#"{"command":"action"}"#), #"action needs a "name""#)
        XCTAssertEqual(error(#"{"command":"action","name":"","scene":""}"#), #"action needs a "name""#)
        XCTAssertEqual(error(#"{"command":"layout","layout":"split"}"#), #"layout split needs a "scene2""#)
    }
}
