import ApphostModel
import Foundation

/// One entry of the host's event stream (CONTRACT A5: every transition carries its reason).
/// Flat, so that `--json` prints one object a line that tools like jq read directly.
public struct HostEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The first event of a host's run: `host` says who it is (CONTRACT O4).
        case hostStarted = "host-started"
        case guestLoaded = "guest-loaded"
        case launchFailed = "launch-failed"
        case appState = "app-state"
        case sceneState = "scene-state"
        case callback
        case log
        case stateSaved = "state-saved"
        /// A save, or a new session, could not be stored (X5): the message says how many bytes
        /// and why ("disk full"). The host tries again; `state-saved` says when it succeeds.
        case stateSaveFailed = "state-save-failed"
        /// The sessions database was found empty or its log damaged, and the host went on: the
        /// message says what it did and what, if anything, was lost; `name` is `saves-lost`
        /// (`HostEvent.savesLost`) when committed saves were dropped, an error rather than a warning.
        case storeRecovered = "store-recovered"
        case alert
        case terminated
        case suspended
        case resumed
        case restarting
        case watchdog
        case error
        case taskBegun = "task-begun"
        case taskEnded = "task-ended"
        case taskExpired = "task-expired"
        case overrun
        case memoryWarning = "memory-warning"
        case layout
        case sceneSize = "scene-size"
        case sceneRequested = "scene-requested"
        case requestRefused = "request-refused"
        case sceneClosed = "scene-closed"
        case loading
        case sceneTitle = "scene-title"
        case modalPresented = "modal-presented"
        case modalDismissed = "modal-dismissed"
        case modalKept = "modal-kept"
        case notification
        case notificationRefused = "notification-refused"
        /// Audio sessions (C1 to C15): a guest's configuration, activation and its refusal,
        /// deactivation, interruptions and their ends, ducking and muting, route changes, hints,
        /// and the host's side: the silence switch, the volume, devices, calls, engine resets,
        /// and a guest that did not pause when its output went away (C10).
        case audioSession = "audio-session"
        case audioActivated = "audio-activated"
        case audioRefused = "audio-refused"
        case audioDeactivated = "audio-deactivated"
        case audioInterrupted = "audio-interrupted"
        case audioInterruptionEnded = "audio-interruption-ended"
        case audioLevel = "audio-level"
        case audioRoute = "audio-route"
        case audioHint = "audio-hint"
        case audioSilenceSwitch = "audio-silence-switch"
        case audioVolume = "audio-volume"
        case audioDevice = "audio-device"
        case audioCall = "audio-call"
        case audioReset = "audio-reset"
        case audioNonconforming = "audio-nonconforming"
        case audioStream = "audio-stream"
        case audioMix = "audio-mix"
        case audioMeter = "audio-meter"
        case audioXrun = "audio-xrun"
        /// X7: a guest's audio stream held samples that are not numbers (NaN, infinite) or are
        /// absurdly loud, and the mixer silenced the periods that held them; said once an episode,
        /// `name` the count at its start.
        case audioBadSamples = "audio-bad-samples"
        case audioThread = "audio-thread"
        /// A guest's real-time audio thread kept missing its deadlines while it kept a processor
        /// busy, and now runs at ordinary priority (`name` "ordinary", or "failed" when the host
        /// could not); the message says what it missed (issue 34, point 9).
        case audioDemoted = "audio-demoted"
        /// A guest reached the limit of its requests of one kind (`name`: `audio`) and is being
        /// throttled, reason `flooding`, once for each episode; it is stopped if it keeps at it
        /// (CONTRACT X7).
        case throttled
        /// A guest's container refused a system call (`name`) that no entitlement allows, the
        /// first time it did in that worker (CONTRACT X6).
        case sandboxRefused = "sandbox-refused"
        /// A guest's container refused what an entitlement the guest does not declare would allow
        /// (`name`: the entitlement, `network` or `audio-input`), the first time it did in that
        /// worker; the message says what was refused (CONTRACT A6).
        case entitlementMissing = "entitlement-missing"
        /// Not the core's: `apphost launch` dropped event lines because its standard output was not
        /// being read, and says how many in `message` once it can write again (CONTRACT X2).
        case eventsDropped = "events-dropped"
    }

    /// A `store-recovered` event's name when committed saves were lost.
    public static let savesLost = "saves-lost"

    public var time: Date
    public var kind: Kind
    public var guest: String?
    public var scene: SceneHandle?
    public var session: String?
    public var from: String?
    public var to: String?
    public var reason: TransitionReason?
    /// The callback's C name (callback events), alert "shown"/"dismissed", a modal's style, a
    /// notification's title, ...; never a log level, which has a field of its own.
    public var name: String?
    /// A log event's level; nil for every other event.
    public var level: GuestLogLevel?
    public var message: String?
    /// Who the host is: on `host-started` only.
    public var host: HostIdentity?

    public init(
        time: Date, kind: Kind, guest: String? = nil, scene: SceneHandle? = nil, session: String? = nil,
        from: String? = nil, to: String? = nil, reason: TransitionReason? = nil, name: String? = nil,
        level: GuestLogLevel? = nil, message: String? = nil, host: HostIdentity? = nil
    ) {
        self.time = time
        self.kind = kind
        self.guest = guest
        self.scene = scene
        self.session = session
        self.from = from
        self.to = to
        self.reason = reason
        self.name = name
        self.level = level
        self.message = message
        self.host = host
    }

    enum CodingKeys: String, CodingKey {
        case time
        case kind = "event"
        case guest, scene, session, from, to, reason, name, level, message, host
    }

    /// One human-readable line, as `apphost launch` and `apphost ctl events` print it. What a
    /// guest gave (a log line, a title, a name, the path of a guest not yet identified) has its
    /// control characters escaped (`TerminalText`), so that the line stays one line and acts on no
    /// terminal (CONTRACT X2, X7); the JSON line carries the exact text.
    public var humanLine: String { TerminalText.escaped(rawHumanLine(withTime: true)) }

    /// `humanLine` without its time, for a log that stamps each entry itself (journald's MESSAGE).
    public var untimedLine: String { TerminalText.escaped(rawHumanLine(withTime: false)) }

    /// A log event as `ctl logs` prints it, one guest's: its time, level and message, escaped as
    /// ``humanLine`` is.
    public var humanLogLine: String {
        TerminalText.escaped(
            [Self.timeFormat(time), "[\(level.map { "\($0)" } ?? "?")]", message ?? ""].joined(separator: " "))
    }

    /// The line before escaping: every part of it that is the host's own is plain text.
    private func rawHumanLine(withTime: Bool) -> String {
        var parts = withTime ? [Self.timeFormat(time), kind.rawValue] : [kind.rawValue]
        if let guest { parts.append(guest) }
        if let scene { parts.append("scene=\(scene)") }
        switch kind {
        case .appState, .sceneState:
            parts.append("\(from ?? "?") -> \(to ?? "?")")
        case .sceneSize:
            if let to { parts.append(to) }
        case .callback, .alert, .taskBegun, .taskEnded, .taskExpired, .modalPresented, .modalDismissed, .modalKept,
            .audioSession, .audioActivated, .audioRefused, .audioDeactivated, .audioInterrupted,
            .audioInterruptionEnded, .audioLevel, .audioRoute, .audioHint, .audioSilenceSwitch, .audioVolume,
            .audioDevice, .audioCall, .audioNonconforming, .audioStream, .audioMix, .audioMeter, .audioXrun,
            .audioBadSamples, .audioThread, .audioDemoted, .throttled, .sandboxRefused, .entitlementMissing:
            if let name { parts.append(name) }
        case .notification, .notificationRefused:
            // In quotes, so that the title does not run into the body (N1).
            if let name { parts.append("\"\(name)\"") }
        case .sceneTitle:
            // In quotes, as a notification's; a title taken away shows as none.
            parts.append(name.map { "\"\($0)\"" } ?? "none")
        case .sceneRequested, .sceneClosed, .requestRefused:
            // The session says which scene: a closed one has no handle any more (S7), and a
            // requested one's handle is the scene that asked (S9). Cut as `ctl ps` shows it.
            if let name { parts.append(name) }
            if let session { parts.append("session \(session.prefix(8))") }
        case .log:
            if let level { parts.append("[\(level)]") }
        case .hostStarted:
            if let host { parts.append("\(host.summary), id \(host.id)") }
        default:
            break
        }
        if let reason { parts.append("(\(reason.rawValue))") }
        if let message { parts.append(message) }
        return parts.joined(separator: " ")
    }

    static func timeFormat(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds)
        var parts = tm()
        localtime_r(&whole, &parts)
        let millis = Int((seconds - Double(whole)) * 1000)
        return String(
            format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, max(0, min(999, millis)))
    }

    /// The event as one line of JSON.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withFractionalSeconds
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// ISO 8601 with milliseconds, so that events within one second keep their order when read.
    public static let iso8601withFractionalSeconds = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(ISO8601Timestamps.string(from: date))
    }
}

extension JSONDecoder.DateDecodingStrategy {
    public static let iso8601withFractionalSeconds = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = ISO8601Timestamps.date(from: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "bad date \(text)"))
        }
        return date
    }
}

/// ISO 8601 timestamps with milliseconds, in UTC. Times are rounded to the millisecond both
/// ways, so that a decoded event encodes to the same text.
public enum ISO8601Timestamps {
    public static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds.quotient(dividingBy: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int(milliseconds.floorRemainder(dividingBy: 1000)))
    }

    public static func date(from text: String) -> Date? {
        guard
            let parsed = try? Date(
                text,
                strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(
                    separator: .omitted))
        else { return nil }
        return Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension Int64 {
    /// Division that rounds toward negative infinity, so times before 1970 format correctly.
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        (self - floorRemainder(dividingBy: divisor)) / divisor
    }

    fileprivate func floorRemainder(dividingBy divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
