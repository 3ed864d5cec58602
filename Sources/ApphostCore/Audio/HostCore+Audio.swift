import ApphostModel
import ApphostVocabulary
import Foundation

/// Audio sessions (CONTRACT C1 to C15, B9). What a guest's runtime reports goes to the arbiter
/// (who may sound) and the routes (where it goes); their notices reach guests as calls, held while
/// a guest is suspended (B8, C14); the operator's levers change the host's side; every change is
/// an event.
extension HostCore {
    // MARK: What the guest's runtime reports

    func handleAudio(_ event: GuestEvent, from guest: GuestRecord) {
        let id = guest.id
        switch event {
        case .audioConfigured(let configuration):
            record(.audioSession, guest: id, name: configuration.description)
            tell(audio.configure(id, configuration))
            tell(audioRoutes.configure(id, configuration))
        case .audioActivationRequested(let request):
            activate(guest, request: request)
        case .audioDeactivated(let notifyOthers):
            if audio.session(of: id).active {
                record(.audioDeactivated, guest: id, name: notifyOthers ? "notify-others" : nil)
            }
            tell(audio.deactivate(id, notifyOthers: notifyOthers))
        case .audioRendering(let rendering):
            audio.setRendering(id, rendering)
        case .audioGainChanged(let gain):
            audio.setGain(id, gain)
        case .audioThread(let thread, let realtime):
            guest.audio.realtimeRenderer = realtime
            guest.audio.renderThread = thread
            guest.audio.renderDeadlines = RenderDeadlineWatch()
            // Watched from its start, so that a late render is demoted at the second meter
            // reading, not the third.
            if realtime, let busy = guest.channel?.audioThreadCPUTime(thread) {
                _ = guest.audio.renderDeadlines.observe(
                    xruns: guest.audio.xrunsMetered, busy: busy, at: clock.uptime(), policy: Self.renderDeadlinePolicy)
            }
            record(.audioThread, guest: id, name: realtime ? "real-time" : "ordinary", message: "thread \(thread)")
            return
        case .audioOutputOverridden(let outputOverride):
            do throws(AudioRouteError) {
                tell(try audioRoutes.override(id, outputOverride))
            } catch {
                // The runtime checks the category too; this one changed it meanwhile.
                record(.requestRefused, guest: id, name: "override_output", message: error.description)
            }
        default:
            return
        }
        audioChanged()
    }

    /// C5: the sessions it interrupts hear so before it hears that it is active, so that they are
    /// silent before it plays (C6).
    private func activate(_ guest: GuestRecord, request: AudioRequestID) {
        let id = guest.id
        var refusal: AudioActivationRefusal?
        if guest.phase == .terminating || guest.stopped {
            refusal = .notRunning
        } else {
            do throws(AudioActivationRefusal) {
                tell(try audio.activate(id, inBackground: guest.appState == .background))
            } catch {
                refusal = error
            }
        }
        if let refusal {
            record(.audioRefused, guest: id, name: refusal.rawValue, message: refusal.description)
        } else {
            record(.audioActivated, guest: id, name: audio.session(of: id).configuration.category.description)
            openStream(guest)
        }
        send(guest, .audioActivationFinished(request, refusal: refusal))
    }

    // MARK: The operator's levers

    /// C9: ambient and soloAmbient sessions are muted while it is on.
    public func setSilenceSwitch(_ on: Bool) {
        assertOnHostQueue()
        guard audio.silenceSwitch != on else { return }
        audio.silenceSwitch = on
        record(.audioSilenceSwitch, name: on ? "on" : "off")
        audioChanged()
    }

    /// C12: the host's volume, the last factor of every session's level.
    public func setVolume(_ volume: Double) throws(HostCommandError) {
        assertOnHostQueue()
        guard volume >= 0, volume <= 1 else {
            throw HostCommandError.invalid("the volume is from 0 to 1, not \(volume)")
        }
        audio.volume = volume
        record(.audioVolume, name: String(volume))
        audioChanged()
    }

    /// C10: a device is plugged in (the sessions it takes over hear newDeviceAvailable), or
    /// unplugged (those that used it hear oldDeviceUnavailable, and a playing guest should pause;
    /// those left with nothing to play on are interrupted).
    public func setAudioDevice(_ device: AudioDevice, plugged: Bool) throws(HostCommandError) {
        assertOnHostQueue()
        do throws(AudioRouteError) {
            let notices = try plugged ? audioRoutes.plug(device) : audioRoutes.unplug(device)
            record(.audioDevice, name: plugged ? "plugged" : "unplugged", message: device.description)
            tell(notices)
        } catch {
            throw HostCommandError(error.description)
        }
        audioChanged()
    }

    /// C5, C6: an incoming call, which beats every guest: every active session is interrupted and
    /// none can be activated until it ends.
    public func beginAudioCall() throws(HostCommandError) {
        assertOnHostQueue()
        guard !audio.callInProgress else { throw HostCommandError("a call is already under way") }
        record(.audioCall, name: "began")
        tell(audio.beginCall())
        audioChanged()
    }

    /// The call ended: the sessions it interrupted hear so, with should-resume when the operator
    /// says so and only for those that were playing (C7).
    public func endAudioCall(shouldResume: Bool) throws(HostCommandError) {
        assertOnHostQueue()
        guard audio.callInProgress else { throw HostCommandError("no call is under way") }
        record(.audioCall, name: "ended", message: shouldResume ? "should resume" : nil)
        tell(audio.endCall(shouldResume: shouldResume))
        audioChanged()
    }

    /// C15: the host's audio engine restarted: every running guest hears so, its session as at
    /// launch, and sets it up again.
    public func resetMediaServices() {
        assertOnHostQueue()
        record(.audioReset)
        audio.resetSessions()
        for guest in guests where guest.phase == .launching || guest.phase == .running {
            send(guest, .mediaServicesReset)
            tell(audioRoutes.configure(guest.id, .initial))
        }
        audioChanged()
    }

    // MARK: Following the guests

    /// The guest's app state changed: its session follows (B9, C14), and the guests around it.
    func audioFollowsAppState(_ guest: GuestRecord, from before: AppState) {
        let id = guest.id
        switch guest.appState {
        case .notRunning:
            // A guest that ended cannot say notify-others: the arbiter says it for it.
            tell(audio.remove(id))
            audioRoutes.remove(id)
            closeStream(guest)
        case .suspended:
            tell(audio.interrupt(id, reason: .suspended))
        case .background where before == .active || before == .inactive:
            tell(audio.wentToBackground(id, declaresBackgroundAudio: declaresBackgroundAudio(guest)))
        default:
            break
        }
        audioChanged()
    }

    /// Tells the runtime the host's format and the session's route, once, as the guest starts.
    func setUpAudio(_ guest: GuestRecord) {
        deliver(guest, .audioSetup(audioPolicy.format, audioRoutes.add(guest.id)))
    }

    /// B8, C14: on resume, what waited, coalesced.
    func deliverHeldAudio(_ guest: GuestRecord) {
        deliver(guest, all: guest.audio.held.take())
    }

    // MARK: Helpers

    /// Delivers an audio call, or holds it while the guest is suspended (B8, C14). A player the
    /// host suspended because its interruption left it idle (B6) is woken, in background, when
    /// it should resume: it hears so and may take up its sound again (B9), as a phone's player
    /// does after a call; a guest the operator or the watchdog stopped stays stopped.
    private func send(_ guest: GuestRecord, _ call: GuestCall) {
        guard guest.channel != nil else { return }
        guard guest.stopped else { return deliver(guest, call) }
        guest.audio.held.hold(call)
        if case .audioInterruptionEnded(_, shouldResume: true) = call, guest.suspension == .suspended,
            guest.suspendedFor?.reason == .automatic, declaresBackgroundAudio(guest)
        {
            resume(guest.id, reason: .automatic)
        }
    }

    private func tell(_ notices: [AudioNotice]) {
        for notice in notices {
            switch notice {
            case .interruptionBegan(let id, let reason):
                record(.audioInterrupted, guest: id, name: reason.rawValue)
                if let guest = guest(id) { send(guest, .audioInterruptionBegan(reason)) }
            case .interruptionEnded(let id, let reason, let shouldResume):
                record(
                    .audioInterruptionEnded, guest: id, name: reason.rawValue,
                    message: shouldResume ? "should resume" : nil)
                if let guest = guest(id) { send(guest, .audioInterruptionEnded(reason, shouldResume: shouldResume)) }
            case .secondaryAudioHint(let id, let silence):
                record(.audioHint, guest: id, name: silence ? "silence" : "resume")
                if let guest = guest(id) { send(guest, .secondaryAudioHint(silence: silence)) }
            }
        }
    }

    private func tell(_ notices: [AudioRouteNotice]) {
        for notice in notices {
            record(
                .audioRoute, guest: notice.guest, name: notice.reason.rawValue,
                message: "\(notice.previous) -> \(notice.current)")
            guard let guest = guest(notice.guest) else { continue }
            send(guest, .audioRouteChanged(notice.reason, previous: notice.previous, current: notice.current))
            if notice.reason == .oldDeviceUnavailable { checkPauses(guest) }
            if lostItsRoute(notice) { tell(audio.interrupt(notice.guest, reason: .routeGone)) }
        }
    }

    /// C6: nothing is left of what the session plays on (or, recording, records from).
    private func lostItsRoute(_ notice: AudioRouteNotice) -> Bool {
        let category = audio.session(of: notice.guest).configuration.category
        if category == .record { return notice.previous.input != .none && notice.current.input == .none }
        return notice.previous.output != .none && notice.current.output == .none
    }

    /// C10: a guest playing when its output went away should pause; a grace later, the host looks.
    private func checkPauses(_ guest: GuestRecord) {
        let session = audio.session(of: guest.id)
        guard session.active, session.rendering, let channel = guest.channel else { return }
        let grace = audioPolicy.routeConformanceGrace
        guest.audio.conformanceCheck?.cancel()
        guest.audio.conformanceCheck = clock.schedule(after: grace) { [weak self] in
            guard let self, guest.channel === channel else { return }
            guest.audio.conformanceCheck = nil
            let session = self.audio.session(of: guest.id)
            guard session.active, session.rendering, !guest.stopped else { return }
            guest.audio.nonconformances += 1
            self.record(
                .audioNonconforming, guest: guest.id, name: "C10",
                message: "still playing \(grace.secondsText) after its output went away")
        }
    }

    /// After every change: the secondary-audio hints (C11), ducking and muting as events (C8,
    /// C9), and background audio keeping guests running or not (B9).
    /// Only guests that have touched their session can have changed: the others are inactive,
    /// at full level, and keep nobody running, so a host whose guests play no audio does no more
    /// per transition than before.
    private func audioChanged() {
        guard !audio.guests.isEmpty else { return }
        let foreground = Set(
            guests.filter { !$0.stopped && ($0.appState == .active || $0.appState == .inactive) }.map(\.id))
        tell(audio.secondaryAudioHints(foreground: foreground))
        for guest in audio.guests.compactMap(guest) where guest.phase != .notRunning {
            let level = audio.level(of: guest.id)
            let muted = level.muted && audio.session(of: guest.id).active
            if level.ducked != guest.audio.ducked {
                guest.audio.ducked = level.ducked
                record(.audioLevel, guest: guest.id, name: level.ducked ? "ducked" : "unducked")
            }
            if muted != guest.audio.muted {
                guest.audio.muted = muted
                record(.audioLevel, guest: guest.id, name: muted ? "muted" : "unmuted")
            }
            let plays = audio.playsInBackground(guest.id, declaresBackgroundAudio: declaresBackgroundAudio(guest))
            if plays != guest.audio.playsInBackground {
                guest.audio.playsInBackground = plays
                audioSessionChanged(guest)
            }
            updateMix(guest)
        }
    }

    // MARK: The sound (C13)

    /// At a session's first activation in a run: the guest's runtime gets its stream before it
    /// hears that it is active, so that its audio thread waits for the mixer by the time it plays.
    private func openStream(_ guest: GuestRecord) {
        guard let audioMixer, guest.audio.stream == .none, let channel = guest.channel else { return }
        let stream: any AudioStream
        do throws(AudioMixerError) {
            stream = try audioMixer.openStream(for: guest.id)
        } catch {
            guest.audio.stream = .refused
            record(.audioStream, guest: guest.id, name: "failed", message: error.description)
            return
        }
        guest.audio.stream = .opening
        deliver(guest, .audioStream(AudioStreamHandle(stream))) { [weak self] reply in
            guard let self, guest.channel === channel, guest.audio.stream == .opening else { return }
            if case .success(let status) = reply, status == 0 {
                guest.audio.stream = .open
                self.record(.audioStream, guest: guest.id, name: "open")
                self.updateMix(guest)
                self.scheduleAudioMeters()
            } else {
                // A guest without render plays nothing: that is no error of the host's.
                guest.audio.stream = .refused
                audioMixer.closeStream(for: guest.id)
                let why =
                    switch reply {
                    case .success(let status): StatusName.of(status)
                    case .failure(let failure): failure.description
                    }
                self.record(.audioStream, guest: guest.id, name: "none", message: why)
            }
        }
    }

    private func closeStream(_ guest: GuestRecord) {
        guard guest.audio.stream != .none else { return }
        if guest.audio.stream != .refused { audioMixer?.closeStream(for: guest.id) }
        guest.audio.stream = .none
        guest.audio.mix = nil
    }

    /// Tells the mixer how the session sounds now, when that changed: mixed while active and the
    /// guest runs (C6, B7), at the arbiter's gain (C8, C9, C12). The event says from which period
    /// on, which a render to a file can be checked against.
    private func updateMix(_ guest: GuestRecord) {
        guard let audioMixer, guest.audio.stream == .open else { return }
        let session = audio.session(of: guest.id)
        let category = session.configuration.category
        let mixed = session.active && !guest.stopped
        let mix = AudioMix(
            mixed: mixed, gain: mixed ? audio.level(of: guest.id).gain : 0,
            recordsInput: category == .record || category == .playAndRecord)
        guard mix != guest.audio.mix else { return }
        let wasMixed = guest.audio.mix?.mixed ?? false
        guest.audio.mix = mix
        guard let period = audioMixer.setMix(of: guest.id, mix) else { return }
        guard mixed || wasMixed else { return }
        record(
            .audioMix, guest: guest.id, name: mixed ? "mixed" : "silent",
            message: mixed
                ? "gain \(String(format: "%.3f", mix.gain)) from period \(period)" : "from period \(period)")
    }

    /// Once a second while a stream is open: each mixed session's level, frames and xruns, and
    /// the output's, into the event stream (C13).
    private func scheduleAudioMeters() {
        guard audioMeterTimer == nil, audioMixer != nil else { return }
        audioMeterTimer = clock.schedule(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            self.audioMeterTimer = nil
            self.recordAudioMeters()
        }
    }

    /// The policy of `watchRenderDeadlines`.
    static let renderDeadlinePolicy = RenderDeadlinePolicy()

    /// A real-time audio thread that keeps missing its deadlines while it keeps a processor busy
    /// is demoted to ordinary scheduling, and the event stream names it (issue 34, point 9): at
    /// the same real-time priority as every other session's, it would hold theirs back.
    private func watchRenderDeadlines(_ guest: GuestRecord, xruns: UInt64) {
        guard guest.audio.realtimeRenderer == true, let thread = guest.audio.renderThread,
            let channel = guest.channel, let busy = channel.audioThreadCPUTime(thread),
            let demotion = guest.audio.renderDeadlines.observe(
                xruns: xruns, busy: busy, at: clock.uptime(), policy: Self.renderDeadlinePolicy)
        else { return }
        let demoted = channel.demoteAudioThread(thread)
        if demoted { guest.audio.realtimeRenderer = false }
        record(
            .audioDemoted, guest: guest.id, name: demoted ? "ordinary" : "failed",
            message: "thread \(thread) missed \(demotion.missed) periods over \(demotion.over.secondsText), "
                + "busy \(Int((demotion.busyShare * 100).rounded()))% of a core at real-time priority; "
                + (demoted ? "it runs at ordinary priority from now on" : "it could not be demoted"))
    }

    private func recordAudioMeters() {
        guard let audioMixer else { return }
        let streaming = guests.filter { $0.audio.stream == .open }
        guard !streaming.isEmpty else { return }
        let meters = audioMixer.meters()
        let output = meters.output
        // A mixer that stopped (an offline render of a set length) has nothing new to say.
        guard output.periods != audioMeteredPeriods else { return scheduleAudioMeters() }
        audioMeteredPeriods = output.periods
        // A new mixer (an engine reset) counts from 0 again.
        if output.overruns < audioMeteredOverruns { audioMeteredOverruns = 0 }
        if output.overruns > audioMeteredOverruns {
            measure(.audioMixerOverruns(count: output.overruns - audioMeteredOverruns))
        }
        audioMeteredOverruns = output.overruns
        record(
            .audioMeter, name: "output",
            message: "\(Self.levelText(output.level)), \(output.periods) periods, \(output.overruns) overruns")
        for guest in streaming {
            guard let meter = meters.sessions[guest.id] else { continue }
            if guest.audio.mix?.mixed == true {
                record(
                    .audioMeter, guest: guest.id, name: "session",
                    message: "\(Self.levelText(meter.level)), \(meter.framesRendered) frames, \(meter.xruns) xruns")
            }
            if meter.xruns > guest.audio.xrunsMetered {
                record(
                    .audioXrun, guest: guest.id, name: String(meter.xruns - guest.audio.xrunsMetered),
                    message: "\(meter.xruns) in all")
            }
            guest.audio.xrunsMetered = meter.xruns
            noteBadSamples(guest, meter.badSamples)
            watchRenderDeadlines(guest, xruns: meter.xruns)
        }
        scheduleAudioMeters()
    }

    /// X7: samples that are not numbers cost the guest its own sound, for the period that held
    /// them (the mixer silences it); the metrics count them all, and the event stream names the
    /// guest once per episode: at the first reading that finds new ones after one that found none.
    private func noteBadSamples(_ guest: GuestRecord, _ total: UInt64) {
        // A new stream counts from 0 again.
        if total < guest.audio.badSamplesMetered { guest.audio.badSamplesMetered = 0 }
        let new = total - guest.audio.badSamplesMetered
        guest.audio.badSamplesMetered = total
        guard new > 0 else {
            guest.audio.badSamplesEpisode = false
            return
        }
        measure(.audioBadSamples(guest: guest.id, count: new))
        guard !guest.audio.badSamplesEpisode else { return }
        guest.audio.badSamplesEpisode = true
        record(
            .audioBadSamples, guest: guest.id, name: String(new),
            message:
                "rendered \(new) samples that are not numbers or beyond +24 dBFS (NaN, infinite, absurd): each "
                + "period that held one was silenced; said once until a second passes without one")
    }

    private static func levelText(_ level: AudioLevelReading) -> String {
        String(format: "peak %.1f dBFS, rms %.1f dBFS", level.peakDBFS, level.rmsDBFS)
    }

    private func declaresBackgroundAudio(_ guest: GuestRecord) -> Bool {
        guest.descriptor.capabilities.contains(.backgroundAudio)
    }
}
