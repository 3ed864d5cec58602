import ApphostModel
import XCTest

@testable import ApphostPolicy

/// The host's audio devices and the guests' routes on their own (CONTRACT C10): which device
/// takes over, which guests hear of a change, why, with which previous and current route, and in
/// which order.
final class AudioRoutesTests: XCTestCase {
    private let speaker = AudioRoute(output: .speaker, input: .none)
    private let headphones = AudioRoute(output: .headphones, input: .none)
    private let builtInMic = AudioRoute(output: .none, input: .builtInMic)
    private let headsetMic = AudioRoute(output: .none, input: .headsetMic)

    private func configuration(_ category: AudioCategory) throws -> AudioConfiguration {
        try AudioConfiguration(category: category)
    }

    /// A host with "music" (playback) and "memo" (record), in that order.
    private func musicAndMemo() throws -> AudioRoutes {
        var routes = AudioRoutes()
        XCTAssertEqual(routes.add("music", configuration: try configuration(.playback)), speaker)
        XCTAssertEqual(routes.add("memo", configuration: try configuration(.record)), builtInMic)
        return routes
    }

    // CONTRACT C10: the host starts with the speaker and the built-in microphone; a session's
    // route follows from its category (record has no output, the others but playAndRecord no
    // input), and appearing is told with the session, not by a notice.
    func testC10ASessionsRouteFollowsItsCategory() throws {
        var routes = AudioRoutes()
        XCTAssertEqual(routes.devices, [.speaker, .builtInMic])
        XCTAssertEqual(routes.output, .speaker)
        XCTAssertEqual(routes.input, .builtInMic)
        XCTAssertEqual(routes.add("game"), speaker, "soloAmbient, as every session starts (C1)")
        XCTAssertEqual(
            routes.add("call", configuration: try configuration(.playAndRecord)),
            .init(output: .speaker, input: .builtInMic))
        XCTAssertEqual(routes.add("memo", configuration: try configuration(.record)), builtInMic)
        XCTAssertEqual(routes.add("ambience", configuration: try configuration(.ambient)), speaker)
        XCTAssertEqual(routes.route(of: "call"), .init(output: .speaker, input: .builtInMic))
        XCTAssertEqual(routes.route(of: "stranger"), speaker, "what a new session would get")
    }

    // CONTRACT C10: plugging headphones in is a newDeviceAvailable for the playback guest
    // (speaker -> headphones) and for the record guest too, since the headphones' headset mic
    // takes over its input (built-in mic -> headset mic); guests in first-seen order.
    func testC10PluggingHeadphonesIsANewDeviceForPlaybackAndRecordGuests() throws {
        var routes = try musicAndMemo()
        XCTAssertEqual(
            try routes.plug(.headphones),
            [
                AudioRouteNotice(guest: "music", reason: .newDeviceAvailable, previous: speaker, current: headphones),
                AudioRouteNotice(guest: "memo", reason: .newDeviceAvailable, previous: builtInMic, current: headsetMic),
            ])
        XCTAssertEqual(routes.output, .headphones)
        XCTAssertEqual(routes.input, .headsetMic)
        XCTAssertEqual(routes.route(of: "music"), headphones, "told, so it is the route it has")
    }

    // CONTRACT C10: a device that gives only an output changes nothing for a record guest, and
    // one that gives only an input nothing for a playback guest: only guests whose route changed
    // hear of it.
    func testC10OnlyGuestsWhoseRouteChangedHearOfIt() throws {
        var routes = try musicAndMemo()
        XCTAssertEqual(
            try routes.plug(.lineOut),
            [
                AudioRouteNotice(
                    guest: "music", reason: .newDeviceAvailable, previous: speaker,
                    current: .init(output: .lineOut, input: .none))
            ])
        XCTAssertEqual(
            try routes.plug(.lineIn),
            [
                AudioRouteNotice(
                    guest: "memo", reason: .newDeviceAvailable, previous: builtInMic,
                    current: .init(output: .none, input: .lineIn))
            ])
    }

    // CONTRACT C10: unplugging the headphones is an oldDeviceUnavailable (a playing guest should
    // pause), back to the speaker and the built-in mic.
    func testC10UnpluggingHeadphonesIsAnOldDeviceUnavailableBackToTheSpeaker() throws {
        var routes = try musicAndMemo()
        _ = try routes.plug(.headphones)
        XCTAssertEqual(
            try routes.unplug(.headphones),
            [
                AudioRouteNotice(guest: "music", reason: .oldDeviceUnavailable, previous: headphones, current: speaker),
                AudioRouteNotice(
                    guest: "memo", reason: .oldDeviceUnavailable, previous: headsetMic, current: builtInMic),
            ])
        XCTAssertEqual(routes.devices, [.speaker, .builtInMic])
    }

    // CONTRACT C10: with every device unplugged the host has no output and no input, and every
    // session's route is none.
    func testC10UnpluggingEverythingLeavesNoRoute() throws {
        var routes = try musicAndMemo()
        XCTAssertEqual(
            try routes.unplug(.speaker),
            [AudioRouteNotice(guest: "music", reason: .oldDeviceUnavailable, previous: speaker, current: .none)])
        XCTAssertEqual(
            try routes.unplug(.builtInMic),
            [AudioRouteNotice(guest: "memo", reason: .oldDeviceUnavailable, previous: builtInMic, current: .none)])
        XCTAssertEqual(routes.devices, [])
        XCTAssertEqual(routes.output, .none)
        XCTAssertEqual(routes.input, .none)
        XCTAssertEqual(routes.add("late", configuration: try configuration(.playAndRecord)), .none)
        XCTAssertEqual(
            try routes.plug(.speaker),
            [
                AudioRouteNotice(guest: "music", reason: .newDeviceAvailable, previous: .none, current: speaker),
                AudioRouteNotice(
                    guest: "late", reason: .newDeviceAvailable, previous: .none,
                    current: .init(output: .speaker, input: .none)),
            ])
    }

    // CONTRACT C10: the newest device plugged in takes over; unplugging one that is not current
    // changes nobody's route, and unplugging the current one falls back to the newest left.
    func testC10TheNewestDeviceWinsAndUnpluggingAnOlderOneChangesNothing() throws {
        var routes = try musicAndMemo()
        _ = try routes.plug(.headphones)
        let bluetooth = AudioRoute(output: .bluetooth, input: .none)
        XCTAssertEqual(
            try routes.plug(.bluetooth).map(\.current),
            [bluetooth, .init(output: .none, input: .bluetooth)])
        XCTAssertEqual(try routes.unplug(.headphones), [], "not current: nobody's route changes")
        XCTAssertEqual(try routes.unplug(.speaker), [])
        XCTAssertEqual(routes.devices, [.builtInMic, .bluetooth])
        XCTAssertEqual(
            try routes.unplug(.bluetooth),
            [
                AudioRouteNotice(guest: "music", reason: .oldDeviceUnavailable, previous: bluetooth, current: .none),
                AudioRouteNotice(
                    guest: "memo", reason: .oldDeviceUnavailable, previous: .init(output: .none, input: .bluetooth),
                    current: builtInMic),
            ])
    }

    // CONTRACT C10: a new category that routes the session differently is a categoryChange, with
    // the previous route; one that routes it the same is not told.
    func testC10GoingFromPlaybackToRecordIsACategoryChange() throws {
        var routes = try musicAndMemo()
        XCTAssertEqual(routes.configure("music", try configuration(.ambient)), [], "same route")
        XCTAssertEqual(
            routes.configure("music", try configuration(.record)),
            [AudioRouteNotice(guest: "music", reason: .categoryChange, previous: speaker, current: builtInMic)])
        XCTAssertEqual(
            routes.configure("memo", try configuration(.playAndRecord)),
            [
                AudioRouteNotice(
                    guest: "memo", reason: .categoryChange, previous: builtInMic,
                    current: .init(output: .speaker, input: .builtInMic))
            ])
    }

    // CONTRACT C10: a playAndRecord guest's override to the speaker takes its output off the
    // headphones, and back; each is an override notice, and an override that changes no route is
    // not told.
    func testC10OverrideToTheSpeakerAndBack() throws {
        var routes = AudioRoutes()
        _ = routes.add("call", configuration: try configuration(.playAndRecord))
        XCTAssertEqual(try routes.override("call", .speaker), [], "already on the speaker")
        _ = try routes.override("call", .none)
        _ = try routes.plug(.headphones)
        let onHeadphones = AudioRoute(output: .headphones, input: .headsetMic)
        let onSpeaker = AudioRoute(output: .speaker, input: .headsetMic)
        XCTAssertEqual(
            try routes.override("call", .speaker),
            [AudioRouteNotice(guest: "call", reason: .override, previous: onHeadphones, current: onSpeaker)])
        XCTAssertEqual(routes.route(of: "call"), onSpeaker)
        XCTAssertEqual(
            try routes.override("call", .none),
            [AudioRouteNotice(guest: "call", reason: .override, previous: onSpeaker, current: onHeadphones)])
    }

    // CONTRACT C10: an override counts only while the speaker is plugged in: without it the
    // session has the host's output. Plugging the speaker back in ends the override, and the
    // speaker, now the newest device, is everyone's output.
    func testC10AnOverrideToAnUnpluggedSpeakerKeepsTheHostsOutput() throws {
        var routes = AudioRoutes()
        _ = routes.add("call", configuration: try configuration(.playAndRecord))
        _ = try routes.plug(.headphones)
        _ = try routes.override("call", .speaker)
        let onHeadphones = AudioRoute(output: .headphones, input: .headsetMic)
        let onSpeaker = AudioRoute(output: .speaker, input: .headsetMic)
        XCTAssertEqual(
            try routes.unplug(.speaker),
            [AudioRouteNotice(guest: "call", reason: .oldDeviceUnavailable, previous: onSpeaker, current: onHeadphones)]
        )
        XCTAssertEqual(try routes.override("call", .speaker), [], "no speaker to send it to")
        XCTAssertEqual(try routes.plug(.speaker).map(\.current), [.init(output: .speaker, input: .headsetMic)])
    }

    // CONTRACT C10 (audio.h's override_output): only a playAndRecord session can override its
    // output; a refusal changes nothing.
    func testC10OverrideIsRefusedForPlayback() throws {
        var routes = try musicAndMemo()
        _ = try routes.plug(.headphones)
        XCTAssertThrowsError(try routes.override("music", .speaker)) {
            XCTAssertEqual("\($0)", "only a playAndRecord session can override its output")
        }
        XCTAssertThrowsError(try routes.override("memo", .none))
        XCTAssertThrowsError(try routes.override("stranger", .speaker), "a new session is soloAmbient")
        XCTAssertEqual(routes.route(of: "music"), headphones)
    }

    // CONTRACT C10 (audio.h's override_output): plugging a device in ends every override, and
    // the new route is told as newDeviceAvailable; so does a new configuration, as a
    // categoryChange.
    func testC10PluggingADeviceOrConfiguringEndsTheOverride() throws {
        var routes = AudioRoutes()
        _ = routes.add("call", configuration: try configuration(.playAndRecord))
        _ = routes.add("intercom", configuration: try configuration(.playAndRecord))
        _ = try routes.plug(.lineOut)
        _ = try routes.override("call", .speaker)
        _ = try routes.override("intercom", .speaker)
        let onSpeaker = AudioRoute(output: .speaker, input: .builtInMic)
        XCTAssertEqual(
            try routes.plug(.lineIn),
            [
                AudioRouteNotice(
                    guest: "call", reason: .newDeviceAvailable, previous: onSpeaker,
                    current: .init(output: .lineOut, input: .lineIn)),
                AudioRouteNotice(
                    guest: "intercom", reason: .newDeviceAvailable, previous: onSpeaker,
                    current: .init(output: .lineOut, input: .lineIn)),
            ])
        _ = try routes.override("call", .speaker)
        XCTAssertEqual(
            routes.configure("call", try configuration(.playAndRecord)),
            [
                AudioRouteNotice(
                    guest: "call", reason: .categoryChange, previous: .init(output: .speaker, input: .lineIn),
                    current: .init(output: .lineOut, input: .lineIn))
            ])
    }

    // CONTRACT C10: the operator cannot plug in a device twice, nor unplug one that is not
    // plugged in; each refusal is one line and changes nothing.
    func testC10PluggingTwiceAndUnpluggingWhatIsNotPluggedAreRefused() throws {
        var routes = try musicAndMemo()
        _ = try routes.plug(.headphones)
        XCTAssertThrowsError(try routes.plug(.headphones)) {
            XCTAssertEqual($0 as? AudioRouteError, AudioRouteError("headphones is already plugged in"))
        }
        XCTAssertThrowsError(try routes.unplug(.lineIn)) {
            XCTAssertEqual("\($0)", "line-in is not plugged in")
        }
        XCTAssertThrowsError(try routes.plug(.speaker)) {
            XCTAssertEqual("\($0)", "speaker is already plugged in", "plugged in when the host starts")
        }
        XCTAssertEqual(routes.devices, [.speaker, .builtInMic, .headphones])
        XCTAssertEqual(routes.route(of: "music"), headphones)
    }

    // CONTRACT C10: notices come in the order the guests first appeared, whatever their names; a
    // guest that appears again keeps its place, one removed hears nothing more and one added
    // after goes last.
    func testC10NoticesComeInFirstSeenOrder() throws {
        var routes = AudioRoutes()
        for guest in ["zulu", "alpha", "mike"] { _ = routes.add(guest) }
        _ = routes.add("zulu", configuration: try configuration(.playback))
        XCTAssertEqual(try routes.plug(.headphones).map(\.guest), ["zulu", "alpha", "mike"])
        routes.remove("alpha")
        _ = routes.add("bravo")
        XCTAssertEqual(try routes.unplug(.headphones).map(\.guest), ["zulu", "mike", "bravo"])
        XCTAssertEqual(routes.guests, ["zulu", "mike", "bravo"])
    }
}
