import ApphostModel
import ApphostVocabulary

/// Carries out audio (CONTRACT C1 to C15, B9, X7): tells `AudioSessions` what happened and does
/// what the part says, the mixer's calls included; what the mixer or a guest answers goes back to
/// the part. It owns the part and the mixer.
///
/// Confined to the host queue, like the core that keeps it.
public final class AudioRunner: @unchecked Sendable {
    /// Audio sessions, routes, streams and meters; read for status.
    private(set) var sessions: AudioSessions
    /// Where sessions' sound is mixed (C13); nil for a host that mixes nothing (tests of policy).
    let mixer: (any AudioMixer)?
    private let outbox: GuestOutbox
    /// The clock's handles of the part's timers, by token.
    private var alarms = Alarms<AudioToken>()
    private let log: HostEventLog
    private let clock: any HostClock
    private let measure: @Sendable (HostMeasurement) -> Void
    private let hostQueue: any HostExecutor
    weak var lifecycle: (any LifecycleOrders)?
    /// Told when a guest's sound starts or stops keeping it running in background (B9).
    var playsInBackgroundChanged: (GuestRecord) -> Void = { _ in }

    init(
        policy: AudioPolicy, requests: FloodPolicy, mixer: (any AudioMixer)?, outbox: GuestOutbox, log: HostEventLog,
        clock: any HostClock, hostQueue: any HostExecutor, measure: @escaping @Sendable (HostMeasurement) -> Void
    ) {
        self.hostQueue = hostQueue
        sessions = AudioSessions(policy: policy, requests: requests, mixes: mixer != nil)
        self.mixer = mixer
        self.outbox = outbox
        self.log = log
        self.clock = clock
        self.measure = measure
    }

    /// An operator's lever on audio (`apphost ctl audio`); refused with one line, nothing changed,
    /// where it cannot move (the silence switch and the reset never are).
    public func apply(_ command: AudioCommand) throws(HostCommandError) {
        hostQueue.preconditionCurrent()
        perform(try sessions.apply(command, facts))
    }

    func playsInBackground(_ id: String) -> Bool { sessions.playsInBackground(id) }
    func launching(_ id: String) { perform(sessions.launching(id)) }
    func unloaded(_ id: String) { perform(sessions.unloaded(id)) }
    /// C14: the stopped guest's interruption, route and hints, coalesced, as it resumes (B8).
    func releaseHeld(_ id: String) { perform(sessions.releaseHeld(id)) }

    /// The guest's app state changed: its session follows (B9, C14), and the guests around it.
    func appStateChanged(_ guest: GuestRecord, from before: AppState) {
        perform(sessions.appStateChanged(guest.id, from: before, facts))
    }

    /// A report of the guest's runtime: a session request, or its audio thread's start.
    func report(_ event: GuestEvent, from guest: GuestRecord, channel: any GuestChannel) {
        perform(sessions.report(event, from: guest.id, at: clock.uptime(), facts) { channel.audioThreadCPUTime($0) })
    }

    private func facts(_ id: String) -> AudioFacts? { lifecycle?.guest(id).map(AudioFacts.init) }
    private func guest(_ id: String) -> GuestRecord? { lifecycle?.guest(id) }

    private func perform(_ effects: [AudioEffect]) {
        for effect in effects {
            switch effect {
            case .deliver(let call, let id): guest(id).map { outbox.deliver($0, call) }
            case .deliverAll(let calls, let id): guest(id).map { outbox.deliver($0, all: calls) }
            case .record(let kind, let id, let reason, let name, let message):
                log.record(kind, guest: id, reason: reason, name: name, message: message)
            case .measure(let measurement): measure(measurement)
            case .resume(let id): lifecycle?.resume(id, reason: .automatic) { _ in }
            case .playsInBackgroundChanged(let id): guest(id).map(playsInBackgroundChanged)
            case .terminate(let id):
                lifecycle?.terminate(id, reason: .flooding) { [log] result in
                    guard case .failure(let error) = result else { return }
                    // Its requests stay refused meanwhile: the flood costs the host nothing more.
                    log.record(.error, guest: id, reason: .flooding, message: "cannot stop it: \(error)")
                }
            case .openStream(let id): openStream(id)
            case .setMix(let id, let mix, let announce):
                guard let period = mixer?.setMix(of: id, mix), announce else { continue }
                perform([AudioStreams.mixEvent(id, mix, from: period)])
            case .closeStream(let id): mixer?.closeStream(for: id)
            case .readMeters:
                guard let meters = mixer?.meters() else { continue }
                perform(
                    sessions.metersRead(meters, at: clock.uptime()) { [self] id, thread in
                        guest(id)?.channel?.audioThreadCPUTime(thread)
                    })
            case .demote(let id, let thread, let demotion):
                guard let channel = guest(id)?.channel else { continue }
                let succeeded = channel.demoteAudioThread(thread)
                perform(sessions.demoted(id, thread: thread, demotion, succeeded: succeeded))
            case .schedule(let token, let delay):
                // A guest's check is cancelled as its run ends (`AudioSessions.unloaded`).
                let action = outbox.schedule(after: delay) { [weak self] _ in
                    guard let self, self.alarms.fell(token) else { return }
                    self.perform(self.sessions.tick(token, self.facts))
                }
                action.map { alarms.arm(token, $0) }
            case .cancel(let token): alarms.cancel(token)
            }
        }
    }

    /// C13: a stream region for the guest, handed to its runtime; the part hears how it went.
    private func openStream(_ id: String) {
        guard let mixer, let guest = guest(id), let channel = guest.channel else { return }
        do throws(AudioMixerError) {
            let stream = try mixer.openStream(for: id)
            outbox.deliver(guest, .audioStream(AudioStreamHandle(stream))) { [weak self] reply in
                guard let self, guest.channel === channel else { return }
                self.perform(self.sessions.streamAnswered(id, reply, self.facts))
            }
        } catch { perform(sessions.streamRefused(id, error)) }
    }
}
