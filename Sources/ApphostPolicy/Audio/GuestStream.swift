import ApphostModel
import ApphostVocabulary
import Foundation

/// What the audio sessions keep of one guest's stream to the mixer (C13) and of its meter
/// readings: the mix the mixer was last told, the xruns and bad samples (X7) counted, and its
/// render thread watched against its deadlines. Changed only through `AudioStreams`, in place.
struct GuestStream {
    var state = AudioStreamState.none
    /// What the mixer was last told of it.
    var mix: AudioMix?
    /// The xruns the last meter reading counted.
    private var xrunsMetered: UInt64 = 0
    /// The bad samples (X7) the last meter reading counted, and whether the reading before found
    /// new ones: an episode, said once at its start.
    private var badSamplesMetered: UInt64 = 0
    private var badSamplesEpisode = false
    /// Whether its audio thread runs real-time (SCHED_FIFO); nil before it started.
    private(set) var realtimeRenderer: Bool?
    /// Its audio thread's id, as its runtime reported it, and that thread's render watched
    /// against its deadlines while it runs real-time.
    private var renderThread: Int32?
    private var renderDeadlines = RenderDeadlineWatch()

    /// A new run: everything but the stream, which closes as the guest stops running.
    mutating func reset() { self = GuestStream(state: state, mix: mix) }

    /// Its runtime started its audio thread: a new watch, observed from `busy`, its CPU time so
    /// far, while it runs real-time.
    mutating func renderThreadStarted(
        _ thread: Int32, realtime: Bool, busy: Duration?, at now: Duration, policy: RenderDeadlinePolicy
    ) {
        realtimeRenderer = realtime
        renderThread = thread
        renderDeadlines = RenderDeadlineWatch()
        if realtime, let busy {
            _ = renderDeadlines.observe(xruns: xrunsMetered, busy: busy, at: now, policy: policy)
        }
    }

    mutating func demoted() { realtimeRenderer = false }

    /// One meter reading of its session: the meter event while it is mixed, its new xruns, its bad
    /// samples, and its render thread's deadlines.
    mutating func read(
        _ meter: AudioSessionMeter, of id: String, at now: Duration, policy: RenderDeadlinePolicy,
        busy: (String, Int32) -> Duration?, into effects: inout [AudioEffect]
    ) {
        if mix?.mixed == true {
            effects.append(
                .record(
                    .audioMeter, guest: id, name: "session",
                    message: "\(AudioStreams.levelText(meter.level)), \(meter.framesRendered) frames, "
                        + "\(meter.xruns) xruns"))
        }
        if meter.xruns > xrunsMetered {
            effects.append(
                .record(
                    .audioXrun, guest: id, name: String(meter.xruns - xrunsMetered), message: "\(meter.xruns) in all"))
        }
        xrunsMetered = meter.xruns
        noteBadSamples(id, meter.badSamples, into: &effects)
        // A real-time audio thread that keeps missing its deadlines while it keeps a processor
        // busy is demoted to ordinary scheduling (issue 34, point 9): at the same real-time
        // priority as every other session's, it would hold theirs back.
        guard realtimeRenderer == true, let thread = renderThread, let busy = busy(id, thread),
            let demotion = renderDeadlines.observe(xruns: meter.xruns, busy: busy, at: now, policy: policy)
        else { return }
        effects.append(.demote(id, thread: thread, demotion))
    }

    /// X7: samples that are not numbers cost the guest its own sound, for the period that held
    /// them (the mixer silences it); the metrics count them all, and the event stream names the
    /// guest once per episode: at the first reading that finds new ones after one that found none.
    private mutating func noteBadSamples(_ id: String, _ total: UInt64, into effects: inout [AudioEffect]) {
        // A new stream counts from 0 again.
        if total < badSamplesMetered { badSamplesMetered = 0 }
        let new = total - badSamplesMetered
        badSamplesMetered = total
        guard new > 0 else {
            badSamplesEpisode = false
            return
        }
        effects.append(.measure(.audioBadSamples(guest: id, count: new)))
        guard !badSamplesEpisode else { return }
        badSamplesEpisode = true
        effects.append(
            .record(
                .audioBadSamples, guest: id, name: String(new),
                message:
                    "rendered \(new) samples that are not numbers or beyond +24 dBFS (NaN, infinite, absurd): each "
                    + "period that held one was silenced; said once until a second passes without one"))
    }
}

/// Where a guest's stream to the mixer is (C13).
enum AudioStreamState: Equatable {
    /// None yet: the session was never active in this run, or the host has no mixer.
    case none
    /// Sent to the guest's runtime, not yet answered.
    case opening
    /// The guest's audio thread renders into it.
    case open
    /// The runtime refused it (a guest without render: UNSUPPORTED), or the mixer could not
    /// make one; not asked again in this run.
    case refused
}
