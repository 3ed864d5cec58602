import ApphostControl
import ApphostModel
import ApphostVocabulary
import ArgumentParser
import Foundation

/// `ctl audio`: the guests' audio sessions and the host's levers over them (CONTRACT C1 to C15).
struct CtlAudio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Show every guest's audio session, or work the host's silence switch, volume, devices and calls.",
        subcommands: [Show.self, Silence.self, Volume.self, Route.self, Interrupt.self, Reset.self],
        defaultSubcommand: Show.self)

    @OptionGroup var options: CtlOptions

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the host's volume, silence switch and routes, and one line per guest's session.")
        @OptionGroup var options: CtlOptions
        func run() throws {
            let status = try options.connect().send(StatusCommand())
            options.print(AudioView(status: status)) {
                for line in AudioTable(status: status).lines { Output.line(TerminalText.escaped(line)) }
            }
        }
    }

    struct Silence: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn the silence switch on or off: it mutes ambient and soloAmbient sessions (C9).")
        @Argument(help: "on or off.") var state: Switch
        @OptionGroup var options: CtlOptions
        func run() throws {
            try ActionOutput.print(options.connect().send(AudioSilenceCommand(on: state == .on)), json: options.json)
        }
    }

    struct Volume: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the host's volume, from 0 to 1 (C12).",
            usage: "apphost ctl audio volume <volume> [--data-dir <dir>] [--json]")
        // Words, so that a negative number reaches the verb's own check (NumberArgument).
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("From 0 to 1.", valueName: "volume"))
        var words: [String] = []
        @OptionGroup var options: CtlOptions
        func validate() throws { _ = try NumberArgument.value(of: words, name: "volume") }
        func run() throws {
            let command = AudioVolumeCommand(volume: try NumberArgument.value(of: words, name: "volume"))
            try ActionOutput.print(options.connect().send(command), json: options.json)
        }
    }

    struct Route: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plug a device into the host or unplug it; the newest device plugged in takes over (C10).")
        @Argument(help: "plug or unplug.") var action: Action
        @Argument(help: "One of: \(AudioDevice.allCases.map(\.rawValue).joined(separator: ", ")).")
        var device: AudioDevice
        @OptionGroup var options: CtlOptions
        func run() throws {
            try ActionOutput.print(
                options.connect().send(AudioRouteCommand(plug: action == .plug, device: device)), json: options.json)
        }

        enum Action: String, ExpressibleByArgument, CaseIterable { case plug, unplug }
    }

    struct Interrupt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Begin or end an incoming call, which interrupts every guest's session (C5 to C7).")
        @Argument(help: "begin or end.") var phase: Phase
        @Flag(help: "On the end: the sessions that were playing may resume.") var shouldResume = false
        @OptionGroup var options: CtlOptions
        func validate() throws {
            if phase == .begin, shouldResume { throw ValidationError("--should-resume is for the end of a call.") }
        }
        func run() throws {
            try ActionOutput.print(
                options.connect().send(AudioInterruptCommand(begin: phase == .begin, shouldResume: shouldResume)),
                json: options.json)
        }

        enum Phase: String, ExpressibleByArgument, CaseIterable { case begin, end }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restart the host's audio engine: every guest hears media services reset (C15).")
        @OptionGroup var options: CtlOptions
        func run() throws {
            try ActionOutput.print(options.connect().send(AudioResetCommand()), json: options.json)
        }
    }

    enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }
}

extension AudioDevice: ExpressibleByArgument {}

/// `ctl audio --json`: the host's side and each running guest's session.
struct AudioView: Encodable {
    var host: AudioHostStatus?
    var sessions: [Session]

    struct Session: Encodable {
        var guest: String
        var session: AudioSessionStatus
    }

    init(status: HostStatus) {
        host = status.audio
        sessions = status.guests.compactMap { guest in guest.audio.map { Session(guest: guest.id, session: $0) } }
    }
}

/// `ctl audio` for people: the host's line, then one row per running guest's session.
struct AudioTable {
    let status: HostStatus

    var lines: [String] {
        var lines: [String] = []
        if let host = status.audio {
            lines.append(
                "volume: \(Self.number(host.volume))    silence switch: \(host.silenceSwitch ? "on" : "off")    call: "
                    + (host.callInProgress ? "in progress" : "none"))
            lines.append(
                "output: \(host.output)    input: \(host.input)    devices: "
                    + (host.devices.isEmpty ? "none" : host.devices.map(\.rawValue).joined(separator: ", ")))
            lines.append(
                "format: \(host.format.sampleRate) Hz, \(host.format.channelCount) channels, "
                    + "\(host.format.periodFrames) frames per period")
            if let mixer = host.mixer {
                lines.append(
                    "mixer: \(mixer.sink) <- \(mixer.source), \(mixer.clock) clock"
                        + (mixer.realtime ? ", real-time" : ", not real-time") + ", \(mixer.periods) periods, "
                        + "\(mixer.overruns) overruns, latency \(Self.number(mixer.latencyMilliseconds)) ms")
                lines.append(
                    "output level: \(Self.level(mixer.level)), \(mixer.clippedSamples) samples clipped"
                        + (mixer.failure.map { "; failed: \($0)" } ?? ""))
            }
        }
        let sessions = status.guests.compactMap { guest in guest.audio.map { (guest.id, $0) } }
        guard !sessions.isEmpty else { return lines + ["no sessions"] }
        let header = [
            "GUEST", "CATEGORY", "MODE", "OPTIONS", "ACTIVE", "PLAYING", "INTERRUPTED", "DUCKED", "MUTED", "GAIN",
            "LEVEL", "ROUTE", "PEAK", "RMS", "FRAMES", "XRUNS", "BAD",
        ]
        let rows = sessions.map { id, session in
            [
                id, session.category.description, session.mode.description, session.options.description,
                yesNo(session.active), yesNo(session.rendering), session.interruption?.rawValue ?? "no",
                yesNo(session.ducked), yesNo(session.muted), Self.number(session.gain), Self.number(session.level),
                session.route.description, session.meter.map { Self.decibels($0.level.peakDBFS) } ?? "-",
                session.meter.map { Self.decibels($0.level.rmsDBFS) } ?? "-",
                session.meter.map { String($0.framesRendered) } ?? "-", session.meter.map { String($0.xruns) } ?? "-",
                session.meter.map { String($0.badSamples) } ?? "-",
            ]
        }
        let columns = Columns(header: header, rows: rows)
        lines.append(columns.line(header))
        for ((_, session), cells) in zip(sessions, rows) {
            lines.append(columns.line(cells))
            if session.nonconformances > 0 {
                lines.append("  kept playing after its output went away \(session.nonconformances) time(s) (C10)")
            }
        }
        return lines
    }

    private func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// "-9.0 dB", or "-inf" for the meters' floor (silence).
    static func decibels(_ value: Double) -> String {
        value <= -120 ? "-inf" : String(format: "%.1f dB", value)
    }

    static func level(_ level: AudioLevelReading) -> String {
        "peak \(decibels(level.peakDBFS)), rms \(decibels(level.rmsDBFS))"
    }

    /// Three decimals at most: 0.1 for a ducked session, not 0.10000000000000001.
    static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
