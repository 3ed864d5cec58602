import ApphostModel
import ApphostVocabulary
import Foundation

/// The guests' streams to the host's mixer and the mixer's meters (CONTRACT C13, X7's bad
/// samples, the render deadline watch), as the audio sessions keep them: where each guest's
/// stream is, what the mixer was last told of it, and what the meter readings said. The mixer
/// itself stays with the runner: what it should do is an effect, what it says an input. Held by
/// `AudioSessions`, which alone changes it.
struct AudioStreams {
    /// The host has a mixer: streams open and meters are read.
    let mixes: Bool
    private(set) var guests: [String: GuestStream] = [:]
    /// Guests in the order they were first set up, and those whose stream is open, in that order:
    /// the meters name them so.
    private var rank: [String: Int] = [:]
    private var open: [String] = []
    /// The pending meter reading; the mixer's periods as the last meter events said them, and
    /// its overruns as the metrics were last told them.
    private var meterTimer: AudioToken?
    private var meteredPeriods: UInt64?
    private var meteredOverruns: UInt64 = 0

    init(mixes: Bool) { self.mixes = mixes }

    func state(of id: String) -> AudioStreamState { guests[id]?.state ?? .none }

    /// A guest is set up for the first time.
    mutating func add(_ id: String) {
        guard rank[id] == nil else { return }
        rank[id] = rank.count
        guests[id] = GuestStream()
    }

    /// A new run of the guest: what the last one metered is forgotten.
    mutating func unloaded(_ id: String) { guests[id]?.reset() }

    mutating func renderThreadStarted(
        _ id: String, _ thread: Int32, realtime: Bool, busy: Duration?, at now: Duration, policy: RenderDeadlinePolicy
    ) -> [AudioEffect] {
        guests[id, default: GuestStream()].renderThreadStarted(
            thread, realtime: realtime, busy: busy, at: now, policy: policy)
        return [
            .record(.audioThread, guest: id, name: realtime ? "real-time" : "ordinary", message: "thread \(thread)")
        ]
    }

    // MARK: The stream

    /// At a session's first activation in a run: the guest's runtime gets its stream before it
    /// hears that it is active, so that its audio thread waits for the mixer by the time it plays.
    mutating func open(_ id: String, hasChannel: Bool, into effects: inout [AudioEffect]) {
        guard mixes, state(of: id) == .none, hasChannel else { return }
        guests[id, default: GuestStream()].state = .opening
        effects.append(.openStream(id))
    }

    /// The mixer could make no stream: not asked again in this run.
    mutating func refused(_ id: String, _ error: AudioMixerError) -> [AudioEffect] {
        guard state(of: id) == .opening else { return [] }
        guests[id]?.state = .refused
        return [.record(.audioStream, guest: id, name: "failed", message: error.description)]
    }

    /// The runtime answered the stream: true when it renders into it now. A guest without render
    /// plays nothing: that is no error of the host's.
    mutating func answered(_ id: String, _ reply: GuestReply, into effects: inout [AudioEffect]) -> Bool {
        guard state(of: id) == .opening else { return false }
        if case .success(0) = reply {
            guests[id]?.state = .open
            let place = rank[id] ?? Int.max
            open.insert(id, at: open.firstIndex { (rank[$0] ?? Int.max) > place } ?? open.endIndex)
            effects.append(.record(.audioStream, guest: id, name: "open"))
            return true
        }
        guests[id]?.state = .refused
        effects.append(.closeStream(id))
        let why =
            switch reply {
            case .success(let status): StatusName.of(status)
            case .failure(let failure): failure.description
            }
        effects.append(.record(.audioStream, guest: id, name: "none", message: why))
        return false
    }

    mutating func close(_ id: String, into effects: inout [AudioEffect]) {
        guard let state = guests[id]?.state, state != .none else { return }
        if state != .refused { effects.append(.closeStream(id)) }
        guests[id]?.state = .none
        guests[id]?.mix = nil
        if state == .open { open.removeAll { $0 == id } }
    }

    /// Tells the mixer how the session sounds now, when that changed. The event says from which
    /// period on, which a render to a file can be checked against.
    mutating func update(_ id: String, to mix: AudioMix, into effects: inout [AudioEffect]) {
        guard mixes, state(of: id) == .open, mix != guests[id]?.mix else { return }
        let wasMixed = guests[id]?.mix?.mixed ?? false
        guests[id]?.mix = mix
        effects.append(.setMix(id, mix, announce: mix.mixed || wasMixed))
    }

    /// The event of a change of the mix that the mixer applies from `period` on.
    static func mixEvent(_ id: String, _ mix: AudioMix, from period: UInt64) -> AudioEffect {
        .record(
            .audioMix, guest: id, name: mix.mixed ? "mixed" : "silent",
            message: mix.mixed
                ? "gain \(String(format: "%.3f", mix.gain)) from period \(period)" : "from period \(period)")
    }

    // MARK: The meters

    /// Once a second while a stream is open.
    mutating func scheduleMeters(serial: inout UInt64, into effects: inout [AudioEffect]) {
        guard meterTimer == nil, mixes else { return }
        let reading = AudioToken.next(.meters, serial: &serial)
        meterTimer = reading
        effects.append(.schedule(reading, after: .seconds(1)))
    }

    /// The meter timer fell due: the mixer is read while a stream is open.
    mutating func metersDue(_ token: AudioToken) -> [AudioEffect] {
        guard meterTimer == token else { return [] }
        meterTimer = nil
        return mixes && !open.isEmpty ? [.readMeters] : []
    }

    /// A reading of the mixer's meters: each mixed session's level, frames and xruns, and the
    /// output's, into the event stream (C13); `busy` reads a guest's audio thread's CPU time.
    mutating func read(
        _ meters: AudioMeters, at now: Duration, policy: RenderDeadlinePolicy, busy: (String, Int32) -> Duration?,
        serial: inout UInt64, into effects: inout [AudioEffect]
    ) {
        let output = meters.output
        // A mixer that stopped (an offline render of a set length) has nothing new to say.
        if output.periods != meteredPeriods {
            meteredPeriods = output.periods
            // A new mixer (an engine reset) counts from 0 again.
            if output.overruns < meteredOverruns { meteredOverruns = 0 }
            if output.overruns > meteredOverruns {
                effects.append(.measure(.audioMixerOverruns(count: output.overruns - meteredOverruns)))
            }
            meteredOverruns = output.overruns
            effects.append(
                .record(
                    .audioMeter, name: "output",
                    message: "\(Self.levelText(output.level)), \(output.periods) periods, \(output.overruns) overruns"))
            for id in open {
                guard let meter = meters.sessions[id] else { continue }
                guests[id]?.read(meter, of: id, at: now, policy: policy, busy: busy, into: &effects)
            }
        }
        scheduleMeters(serial: &serial, into: &effects)
    }

    /// The core tried to demote the guest's audio thread, as `read` said; once it did, the guest
    /// hears of it through its session (ABI 1.9).
    mutating func demoted(_ id: String, thread: Int32, _ demotion: RenderDeadlineWatch.Demotion, succeeded: Bool)
        -> [AudioEffect]
    {
        if succeeded { guests[id]?.demoted() }
        let record = AudioEffect.record(
            .audioDemoted, guest: id, name: succeeded ? "ordinary" : "failed",
            message: "thread \(thread) missed \(demotion.missed) periods over \(demotion.over.secondsText), "
                + "busy \(Int((demotion.busyShare * 100).rounded()))% of a core at real-time priority; "
                + (succeeded ? "it runs at ordinary priority from now on" : "it could not be demoted"))
        return succeeded ? [record, .deliver(.audioRenderDemoted(.missedDeadlines), to: id)] : [record]
    }

    /// The guest's worker put its audio thread back to ordinary scheduling itself (X7): the
    /// thread ran the real-time limit without sleeping once, a render that spins, long before
    /// the meters could see it miss its deadlines.
    mutating func overran(_ id: String, thread: Int32) -> [AudioEffect] {
        guests[id]?.demoted()
        return [
            .record(
                .audioDemoted, guest: id, name: "ordinary",
                message: "thread \(thread) ran at real-time priority for \(Self.realtimeLimit) without sleeping once "
                    + "(its render spins; RLIMIT_RTTIME's soft limit); it runs at ordinary priority from now on"),
            .deliver(.audioRenderDemoted(.realtimeLimit), to: id),
        ]
    }

    /// The worker's RLIMIT_RTTIME soft limit (apphost-worker's process_setup.c), as operators read it.
    static let realtimeLimit = "200 ms"

    static func levelText(_ level: AudioLevelReading) -> String {
        String(format: "peak %.1f dBFS, rms %.1f dBFS", level.peakDBFS, level.rmsDBFS)
    }
}
