import ApphostModel

/// A session's route changed: what its guest must hear (CONTRACT C10; audio.h's
/// `route_changed`), with the route it was last told as `previous`.
/// Policy's own: the memberwise initializer Swift writes serves.
struct AudioRouteNotice: Sendable, Equatable, CustomStringConvertible {
    var guest: String
    var reason: AudioRouteChangeReason
    var previous: AudioRoute
    var current: AudioRoute

    /// "music: newDeviceAvailable speaker/none -> headphones/none".
    var description: String { "\(guest): \(reason) \(previous) -> \(current)" }
}

/// Why the operator's plug or unplug, or a guest's override, is refused; nothing changes.
/// `description` is one line.
public struct AudioRouteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    static func alreadyPlugged(_ device: AudioDevice) -> AudioRouteError {
        AudioRouteError("\(device) is already plugged in")
    }

    static func notPlugged(_ device: AudioDevice) -> AudioRouteError {
        AudioRouteError("\(device) is not plugged in")
    }

    static let overrideNeedsPlayAndRecord = AudioRouteError("only a playAndRecord session can override its output")
}

/// The host's audio devices and each guest session's route (CONTRACT C10): which devices the
/// operator has plugged in, in the order they were plugged, and what each guest was last told of
/// its route. It decides and says which guests must hear of a change, and why; the core delivers.
///
/// The host's output is the newest plugged device that has one (`.none` when none has), its
/// input likewise: the speaker and the built-in microphone are plugged in when the host starts,
/// and wired headphones, which bring a headset microphone, take over both when plugged in.
///
/// A session's route follows from its category and the host's devices:
/// - record: no output; the host's input.
/// - playAndRecord: the host's output, or the speaker while the guest overrides its output to the
///   speaker, and the host's input. An override to the speaker counts only while the speaker is
///   plugged in: with the speaker unplugged the session has the host's output, as if it had not
///   overridden (there is no speaker to send the sound to, and silence would be worse). The
///   override is kept meanwhile; it ends as audio.h says: with a new configuration, and when any
///   device is plugged in. defaultToSpeaker changes no route: this host has no receiver.
/// - ambient, soloAmbient, playback: the host's output; no input.
///
/// Notices come in a steady order: guests in the order they first appeared here.
struct AudioRoutes {
    /// One guest's session, as far as its route goes.
    struct Session: Equatable {
        var category = AudioCategory.soloAmbient
        var override = AudioOutputOverride.none
        /// The route the guest was last told (or given when its session appeared).
        var route = AudioRoute.none
    }

    /// The plugged devices, oldest first: the newest with an output or input takes over.
    private(set) var devices: [AudioDevice] = [.speaker, .builtInMic]
    /// Guests in the order their sessions first appeared, so that notices come in a steady order.
    private(set) var guests: [String] = []
    private var sessions: [String: Session] = [:]

    /// The host's output: the newest plugged device that has one.
    var output: AudioOutput { devices.reversed().lazy.compactMap(\.output).first ?? .none }

    /// The host's input: the newest plugged device that has one.
    var input: AudioInput { devices.reversed().lazy.compactMap(\.input).first ?? .none }

    /// A guest's session appeared (at its launch), with `configuration` and no override; returns
    /// its route, which the guest learns with its session rather than by a notice. A guest that
    /// was already here starts over, in its place in the order.
    mutating func add(_ guest: String, configuration: AudioConfiguration = .initial) -> AudioRoute {
        if sessions[guest] == nil { guests.append(guest) }
        var session = Session(category: configuration.category)
        session.route = route(for: session)
        sessions[guest] = session
        return session.route
    }

    /// The route the guest was last told; for a guest not here, the route a new session would get.
    func route(of guest: String) -> AudioRoute {
        sessions[guest]?.route ?? route(for: Session())
    }

    /// The guest set its configuration: its override ends, and it hears of a new route with the
    /// reason categoryChange (C10). A guest not here is added first, as at its launch.
    mutating func configure(_ guest: String, _ configuration: AudioConfiguration) -> [AudioRouteNotice] {
        if sessions[guest] == nil { _ = add(guest) }
        sessions[guest]?.category = configuration.category
        sessions[guest]?.override = .none
        return update([guest], reason: .categoryChange)
    }

    /// The guest overrides its output (audio.h's `override_output`): playAndRecord only, refused
    /// for any other category with nothing changed. It hears of a new route with the reason
    /// override (C10). A guest not here is added first, as at its launch (and so is refused).
    mutating func override(_ guest: String, _ override: AudioOutputOverride) throws(AudioRouteError)
        -> [AudioRouteNotice]
    {
        guard (sessions[guest]?.category ?? .soloAmbient) == .playAndRecord else {
            throw .overrideNeedsPlayAndRecord
        }
        sessions[guest]?.override = override
        return update([guest], reason: .override)
    }

    /// The operator plugged `device` in: it becomes the newest, so it takes over the host's output
    /// or input or both. Every override ends. Each guest whose route changed hears so with the
    /// reason newDeviceAvailable (C10), an override that ended with it included. Refused when the
    /// device is already plugged in.
    mutating func plug(_ device: AudioDevice) throws(AudioRouteError) -> [AudioRouteNotice] {
        guard !devices.contains(device) else { throw .alreadyPlugged(device) }
        devices.append(device)
        for guest in guests { sessions[guest]?.override = .none }
        return update(guests, reason: .newDeviceAvailable)
    }

    /// The operator unplugged `device`: the newest device left takes over what it gave. Each guest
    /// whose route changed hears so with the reason oldDeviceUnavailable (C10: a playing guest is
    /// expected to pause). Unplugging a device no session uses changes nothing. Refused when the
    /// device is not plugged in.
    mutating func unplug(_ device: AudioDevice) throws(AudioRouteError) -> [AudioRouteNotice] {
        guard let index = devices.firstIndex(of: device) else { throw .notPlugged(device) }
        devices.remove(at: index)
        return update(guests, reason: .oldDeviceUnavailable)
    }

    /// The guest is gone: it hears of no route again.
    mutating func remove(_ guest: String) {
        sessions[guest] = nil
        guests.removeAll { $0 == guest }
    }

    // MARK: Helpers

    /// The route a session has with the devices plugged in now.
    private func route(for session: Session) -> AudioRoute {
        switch session.category {
        case .record:
            return AudioRoute(output: .none, input: input)
        case .playAndRecord:
            let speaker = session.override == .speaker && devices.contains(.speaker)
            return AudioRoute(output: speaker ? .speaker : output, input: input)
        case .ambient, .soloAmbient, .playback:
            return AudioRoute(output: output, input: .none)
        }
    }

    /// Each of `guests` whose route differs from the one it was last told is told the new one,
    /// for `reason`, in the order of `guests`.
    private mutating func update(_ guests: [String], reason: AudioRouteChangeReason) -> [AudioRouteNotice] {
        guests.compactMap { guest in
            guard let session = sessions[guest] else { return nil }
            let current = route(for: session)
            guard current != session.route else { return nil }
            sessions[guest]?.route = current
            return AudioRouteNotice(guest: guest, reason: reason, previous: session.route, current: current)
        }
    }
}
