import ApphostModel
import ApphostVocabulary

/// The core's side of audio (CONTRACT C1 to C15, B9, X7): it tells `AudioSessions` what happened
/// and carries out what the part says should happen (`perform`), the mixer's calls included.
extension HostCore {
    public func setSilenceSwitch(_ on: Bool) { try? audio(.silenceSwitch(on)) }  // never refused
    public func setVolume(_ volume: Double) throws(HostCommandError) { try audio(.volume(volume)) }
    public func setAudioDevice(_ device: AudioDevice, plugged: Bool) throws(HostCommandError) {
        try audio(.device(device, plugged: plugged))
    }
    public func beginAudioCall() throws(HostCommandError) { try audio(.beginCall) }
    public func endAudioCall(shouldResume: Bool) throws(HostCommandError) {
        try audio(.endCall(shouldResume: shouldResume))
    }
    public func resetMediaServices() { try? audio(.resetMediaServices) }  // never refused

    private func audio(_ command: AudioCommand) throws(HostCommandError) {
        assertOnHostQueue()
        perform(try audioSessions.apply(command, audioFacts))
    }

    func audioFacts(_ id: String) -> AudioFacts? { guest(id).map(AudioFacts.init) }

    /// The guest's app state changed: its session follows (B9, C14), and the guests around it.
    func audioFollowsAppState(_ guest: GuestRecord, from before: AppState) {
        perform(audioSessions.appStateChanged(guest.id, from: before, audioFacts))
    }

    /// Carries out what the part said, in order; what the mixer or a guest answers goes back to it.
    func perform(_ effects: [AudioEffect]) {
        for effect in effects {
            switch effect {
            case .deliver(let call, let id): guest(id).map { deliver($0, call) }
            case .deliverAll(let calls, let id): guest(id).map { deliver($0, all: calls) }
            case .record(let kind, let id, let reason, let name, let message):
                record(kind, guest: id, reason: reason, name: name, message: message)
            case .measure(let measurement): measure(measurement)
            case .resume(let id): resume(id, reason: .automatic)
            case .playsInBackgroundChanged(let id):
                guard let guest = guest(id) else { continue }
                perform(background.audioChanged(id, backgroundFacts(guest)), for: guest)
            case .terminate(let id):
                terminate(id, reason: .flooding) { [weak self] result in
                    guard case .failure(let error) = result else { return }
                    // Its requests stay refused meanwhile: the flood costs the host nothing more.
                    self?.record(.error, guest: id, reason: .flooding, message: "cannot stop it: \(error)")
                }
            case .openStream(let id):
                guard let audioMixer, let guest = guest(id), let channel = guest.channel else { continue }
                do throws(AudioMixerError) {
                    let stream = try audioMixer.openStream(for: id)
                    deliver(guest, .audioStream(AudioStreamHandle(stream))) { [weak self] reply in
                        guard let self, guest.channel === channel else { return }
                        self.perform(self.audioSessions.streamAnswered(id, reply, self.audioFacts))
                    }
                } catch { perform(audioSessions.streamRefused(id, error)) }
            case .setMix(let id, let mix, let announce):
                guard let period = audioMixer?.setMix(of: id, mix), announce else { continue }
                perform([AudioStreams.mixEvent(id, mix, from: period)])
            case .closeStream(let id): audioMixer?.closeStream(for: id)
            case .readMeters:
                guard let meters = audioMixer?.meters() else { continue }
                perform(
                    audioSessions.metersRead(meters, at: clock.uptime()) { [self] id, thread in
                        guest(id)?.channel?.audioThreadCPUTime(thread)
                    })
            case .demote(let id, let thread, let demotion):
                guard let channel = guest(id)?.channel else { continue }
                let succeeded = channel.demoteAudioThread(thread)
                perform(audioSessions.demoted(id, thread: thread, demotion, succeeded: succeeded))
            case .schedule(let token, let delay):
                // A guest's check is cancelled as its run ends (`AudioSessions.unloaded`).
                arm(token, after: delay) { $0.perform($0.audioSessions.tick(token, $0.audioFacts)) }
            case .cancel(let token): alarms.cancel(token)
            }
        }
    }
}
