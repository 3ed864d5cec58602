import ApphostModel
import ApphostVocabulary

/// `{"command":"audio-silence","on":true}`: the silence switch (C9).
public struct AudioSilenceCommand: ImmediateCommand, Equatable {
    public static let name = "audio-silence"
    public var on: Bool

    public init(on: Bool) { self.on = on }

    public func perform(on host: any ControlTarget) -> String {
        host.setSilenceSwitch(on)
        return "the silence switch is \(on ? "on" : "off")"
    }
}

/// `{"command":"audio-volume","volume":0.5}`: the host's volume, 0 to 1 (C12).
public struct AudioVolumeCommand: ImmediateCommand, Equatable {
    public static let name = "audio-volume"
    public var volume: Double

    public init(volume: Double) { self.volume = volume }

    public func validate() throws(ControlProtocolError) {
        guard volume >= 0, volume <= 1 else { throw ControlProtocolError("the volume is from 0 to 1, not \(volume)") }
    }

    public func perform(on host: any ControlTarget) throws(HostCommandError) -> String {
        try host.setVolume(volume)
        return "the volume is \(volume)"
    }
}

/// `{"command":"audio-route","plug":true,"device":"headphones"}`: plugs a device into the host,
/// or unplugs it (C10).
public struct AudioRouteCommand: ImmediateCommand, Equatable {
    public static let name = "audio-route"
    public var plug: Bool
    public var device: AudioDevice

    public init(plug: Bool, device: AudioDevice) {
        self.plug = plug
        self.device = device
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        plug = try container.decode(Bool.self, forKey: .plug)
        let name = try container.decode(String.self, forKey: .device)
        guard let device = AudioDevice(rawValue: name) else { throw Self.unknownDevice(name) }
        self.device = device
    }

    /// The one-line error for a device the host does not model.
    public static func unknownDevice(_ name: String) -> ControlProtocolError {
        ControlProtocolError(
            "unknown audio device \"\(name)\" (known: \(AudioDevice.allCases.map(\.rawValue).joined(separator: ", ")))")
    }

    public func perform(on host: any ControlTarget) throws(HostCommandError) -> String {
        try host.setAudioDevice(device, plugged: plug)
        return "\(device) is \(plug ? "plugged in" : "unplugged")"
    }
}

/// `{"command":"audio-interrupt","begin":true}`: an incoming call, which interrupts every guest's
/// session; `{"command":"audio-interrupt","begin":false,"shouldResume":true}` ends it (C5 to C7).
public struct AudioInterruptCommand: ImmediateCommand, Equatable {
    public static let name = "audio-interrupt"
    public var begin: Bool
    /// On the end: the interrupted sessions that were playing may resume.
    public var shouldResume: Bool

    public init(begin: Bool, shouldResume: Bool = false) {
        self.begin = begin
        self.shouldResume = shouldResume
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        begin = try container.decode(Bool.self, forKey: .begin)
        shouldResume = try container.decodeIfPresent(Bool.self, forKey: .shouldResume) ?? false
    }

    public func validate() throws(ControlProtocolError) {
        if begin, shouldResume { throw ControlProtocolError("shouldResume is for the end of an interruption") }
    }

    public func perform(on host: any ControlTarget) throws(HostCommandError) -> String {
        guard begin else {
            try host.endAudioCall(shouldResume: shouldResume)
            return "the call ended\(shouldResume ? "; the sessions that were playing may resume" : "")"
        }
        try host.beginAudioCall()
        return "the call began: every session is interrupted"
    }
}

/// `{"command":"audio-reset"}`: the host's audio engine restarts (media services reset, C15).
public struct AudioResetCommand: ImmediateCommand, Equatable {
    public static let name = "audio-reset"

    public init() {}

    public func perform(on host: any ControlTarget) -> String {
        host.resetMediaServices()
        return "media services reset: every guest sets its session up again"
    }
}
