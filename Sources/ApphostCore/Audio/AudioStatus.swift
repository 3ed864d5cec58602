import ApphostModel
import ApphostVocabulary

extension HostCore {
    func audioHostStatus(meters: AudioMeters?) -> AudioHostStatus {
        AudioHostStatus(
            volume: audio.volume, silenceSwitch: audio.silenceSwitch, callInProgress: audio.callInProgress,
            output: audioRoutes.output, input: audioRoutes.input, devices: audioRoutes.devices,
            format: audioPolicy.format, mixer: meters?.output)
    }

    /// Nil while the guest does not run: it has no session then.
    func audioStatus(of guest: GuestRecord, meters: AudioMeters?) -> AudioSessionStatus? {
        guard guest.phase != .notRunning else { return nil }
        let session = audio.session(of: guest.id)
        let level = audio.level(of: guest.id)
        return AudioSessionStatus(
            category: session.configuration.category, mode: session.configuration.mode,
            options: session.configuration.options, active: session.active, rendering: session.rendering,
            interruption: session.interruption?.reason, ducked: level.ducked, muted: level.muted, gain: session.gain,
            level: level.gain, route: audioRoutes.route(of: guest.id), nonconformances: guest.audio.nonconformances,
            meter: guest.audio.stream == .open ? meters?.sessions[guest.id] : nil,
            realtime: guest.audio.realtimeRenderer)
    }
}
