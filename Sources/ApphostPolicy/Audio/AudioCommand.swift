import ApphostModel
import ApphostVocabulary

/// An operator's lever on the host's side of audio (`apphost ctl audio`): the silence switch
/// (C9), the volume (C12), a device plugged or unplugged (C10), a call begun or ended (C5 to
/// C7), the audio engine's restart (C15).
public enum AudioCommand: Equatable, Sendable {
    case silenceSwitch(Bool)
    case volume(Double)
    case device(AudioDevice, plugged: Bool)
    case beginCall
    case endCall(shouldResume: Bool)
    case resetMediaServices
}

extension AudioSessions {
    /// Applies `command`; refused with one line, nothing changed, where the lever cannot move
    /// (the silence switch and the reset never are).
    mutating func apply(_ command: AudioCommand, _ facts: Facts) throws(HostCommandError) -> [AudioEffect] {
        switch command {
        case .silenceSwitch(let on): setSilenceSwitch(on, facts)
        case .volume(let volume): try setVolume(volume, facts)
        case .device(let device, let plugged): try setDevice(device, plugged: plugged, facts)
        case .beginCall: try beginCall(facts)
        case .endCall(let shouldResume): try endCall(shouldResume: shouldResume, facts)
        case .resetMediaServices: resetMediaServices(facts)
        }
    }
}
