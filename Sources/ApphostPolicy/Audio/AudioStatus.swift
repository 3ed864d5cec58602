import ApphostModel
import ApphostVocabulary

/// The audio sessions as operators see them (`HostStatus`), read from the part.
extension AudioSessions {
    func hostStatus(meters: AudioMeters?) -> AudioHostStatus {
        AudioHostStatus(
            volume: arbiter.volume, silenceSwitch: arbiter.silenceSwitch, callInProgress: arbiter.callInProgress,
            output: routes.output, input: routes.input, devices: routes.devices, format: policy.format,
            mixer: meters?.output)
    }

    /// Nil while the guest does not run (`running`): it has no session then.
    func status(of id: String, running: Bool, meters: AudioMeters?) -> AudioSessionStatus? {
        guard running else { return nil }
        let session = arbiter.session(of: id)
        let level = arbiter.level(of: id)
        let stream = streams.guests[id]
        return AudioSessionStatus(
            category: session.configuration.category, mode: session.configuration.mode,
            options: session.configuration.options, active: session.active, rendering: session.rendering,
            interruption: session.interruption?.reason, ducked: level.ducked, muted: level.muted, gain: session.gain,
            level: level.gain, route: routes.route(of: id), nonconformances: guests[id]?.nonconformances ?? 0,
            meter: stream?.state == .open ? meters?.sessions[id] : nil, realtime: stream?.realtimeRenderer)
    }
}
