import ApphostModel
import ApphostVocabulary

/// Audio policy (CONTRACT C1 to C14, B9, X7's audio flood guard, C13's stream, meters and render
/// deadlines): the guests' sessions (`AudioArbiter`), the devices and routes (`AudioRoutes`), and
/// per guest what waits for it while it is suspended, its stream to the mixer and its meter
/// readings (`GuestAudioState`). It owns that state, and nothing else writes it.
///
/// It takes inputs (a guest's audio request or report, a transition of the guest's, an operator's
/// command, the mixer's answers and meter readings, a tick of one of its timers) with what it
/// needs to know of the guests then (`AudioFacts`, by id), and returns what should happen as
/// values (`AudioEffect`), in order, for its runner to carry out. The mixer stays with the runner: a
/// change of the mix is an effect, its readings an input. A timer is a token the runner arms.
///
/// A guest's input costs one lookup of its state, and what its change does to the guests that
/// have touched their session (C5 to C12 concern them all); guests that play no audio cost none.
struct AudioSessions {
    typealias Facts = (String) -> AudioFacts?

    let policy: AudioPolicy
    /// X7: how many requests a guest may make, as its runtime keeps them.
    let requestPolicy: FloodPolicy
    private(set) var arbiter = AudioArbiter()
    private(set) var routes = AudioRoutes()
    private(set) var guests: [String: GuestAudioState] = [:]
    /// C13: the guests' streams to the mixer and its meters.
    private(set) var streams: AudioStreams
    /// Guests in the order they were first set up (the core's order).
    private var order: [String] = []
    /// Numbers the tokens.
    private var serial: UInt64 = 0

    /// The policy of the render deadline watch.
    static let renderDeadlinePolicy = RenderDeadlinePolicy()

    init(policy: AudioPolicy, requests: FloodPolicy, mixes: Bool) {
        self.policy = policy
        self.requestPolicy = requests
        streams = AudioStreams(mixes: mixes)
    }

    /// B9: its session keeps it running in background.
    func playsInBackground(_ id: String) -> Bool { guests[id]?.playsInBackground ?? false }

    // MARK: The guest's life

    /// The guest starts: its runtime hears the host's format and its session's route, once.
    mutating func launching(_ id: String) -> [AudioEffect] {
        if guests[id] == nil {
            order.append(id)
            guests[id] = GuestAudioState()
            streams.add(id)
        }
        return [.deliver(.audioSetup(policy.format, routes.add(id)), to: id)]
    }

    /// B8, C14: on resume, what waited, coalesced.
    mutating func releaseHeld(_ id: String) -> [AudioEffect] {
        guard let calls = guests[id]?.held.take(), !calls.isEmpty else { return [] }
        return [.deliverAll(calls, to: id)]
    }

    /// Its channel closed: everything of the run is forgotten but its stream, closed as its app
    /// state becomes notRunning just after (`appStateChanged`).
    mutating func unloaded(_ id: String) -> [AudioEffect] {
        var effects: [AudioEffect] = []
        guests[id]?.reset(into: &effects)
        streams.unloaded(id)
        return effects
    }

    /// The guest's app state changed: its session follows (B9, C14), and the guests around it.
    mutating func appStateChanged(_ id: String, from before: AppState, _ facts: Facts) -> [AudioEffect] {
        guard let guest = facts(id) else { return [] }
        var effects: [AudioEffect] = []
        switch guest.appState {
        case .notRunning:
            // A guest that ended cannot say notify-others: the arbiter says it for it.
            tell(arbiter.remove(id), facts, into: &effects)
            routes.remove(id)
            streams.close(id, into: &effects)
        case .suspended:
            tell(arbiter.interrupt(id, reason: .suspended), facts, into: &effects)
        case .background where before == .active || before == .inactive:
            let notices = arbiter.wentToBackground(id, declaresBackgroundAudio: guest.declaresBackgroundAudio)
            tell(notices, facts, into: &effects)
        default:
            break
        }
        changed(facts, into: &effects)
        return effects
    }

    // MARK: What the guest's runtime reports

    /// What the guest's runtime reported of its audio: a request of the guest's, or the start of
    /// its audio thread, whose CPU time so far `busy` reads; or what its worker did to that thread
    /// at the real-time limit (X7).
    mutating func report(
        _ event: GuestEvent, from id: String, at now: Duration, _ facts: Facts, busy: (Int32) -> Duration?
    ) -> [AudioEffect] {
        switch event {
        case .audioThread(let thread, let realtime):
            // Watched from its start, with its CPU time so far (read while real-time), so that a
            // late render is demoted at the second meter reading, not the third.
            return streams.renderThreadStarted(
                id, thread, realtime: realtime, busy: realtime ? busy(thread) : nil, at: now,
                policy: Self.renderDeadlinePolicy)
        case .audioThreadOverran(let thread): return streams.overran(id, thread: thread)
        default: return request(event, from: id, at: now, facts)
        }
    }

    /// One of the guest's audio session requests: judged against its limit first (X7), then
    /// handed to the arbiter (who may sound) and the routes (where it goes).
    mutating func request(_ event: GuestEvent, from id: String, at now: Duration, _ facts: Facts) -> [AudioEffect] {
        var effects: [AudioEffect] = []
        guard admits(id, at: now, into: &effects), let guest = facts(id) else { return effects }
        switch event {
        case .audioConfigured(let configuration):
            effects.append(.record(.audioSession, guest: id, name: configuration.description))
            tell(arbiter.configure(id, configuration), facts, into: &effects)
            tell(routes.configure(id, configuration), facts, into: &effects)
        case .audioActivationRequested(let request):
            activate(id, guest, request: request, facts, into: &effects)
        case .audioDeactivated(let notifyOthers):
            if arbiter.session(of: id).active {
                effects.append(.record(.audioDeactivated, guest: id, name: notifyOthers ? "notify-others" : nil))
            }
            tell(arbiter.deactivate(id, notifyOthers: notifyOthers), facts, into: &effects)
            paused(id, into: &effects)
        case .audioRendering(let rendering):
            arbiter.setRendering(id, rendering)
            if !rendering { paused(id, into: &effects) }
        case .audioGainChanged(let gain):
            arbiter.setGain(id, gain)
        case .audioOutputOverridden(let outputOverride):
            do throws(AudioRouteError) {
                tell(try routes.override(id, outputOverride), facts, into: &effects)
            } catch {
                // The runtime checks the category too; this one changed it meanwhile.
                effects.append(.record(.requestRefused, guest: id, name: "override_output", message: error.description))
            }
        default:
            return effects
        }
        changed(facts, into: &effects)
        return effects
    }

    /// X7: a guest that reaches its limit is told once an episode (its runtime refuses the rest
    /// with APPHOST_ERROR_LIMIT_REACHED), and one that keeps at it is terminated, reason flooding.
    /// False when the request is dropped.
    private mutating func admits(_ id: String, at now: Duration, into effects: inout [AudioEffect]) -> Bool {
        switch guests[id, default: GuestAudioState()].requests.admit(at: now, policy: requestPolicy) {
        case .allow:
            return true
        case .throttle(let notice):
            effects.append(.record(.throttled, guest: id, reason: .flooding, name: "audio", message: notice))
            return true
        case .refuse:
            return false
        case .stop(let why):
            effects.append(.record(.error, guest: id, reason: .flooding, message: "stopping it: \(why)"))
            effects.append(.terminate(id))
            return false
        }
    }

    /// C5: the sessions it interrupts hear so before it hears that it is active, so that they are
    /// silent before it plays (C6).
    private mutating func activate(
        _ id: String, _ guest: AudioFacts, request: AudioRequestID, _ facts: Facts, into effects: inout [AudioEffect]
    ) {
        var refusal: AudioActivationRefusal?
        if guest.phase == .terminating || guest.stopped {
            refusal = .notRunning
        } else {
            do throws(AudioActivationRefusal) {
                tell(try arbiter.activate(id, inBackground: guest.appState == .background), facts, into: &effects)
            } catch {
                refusal = error
            }
        }
        if let refusal {
            effects.append(.record(.audioRefused, guest: id, name: refusal.rawValue, message: refusal.description))
        } else {
            let category = arbiter.session(of: id).configuration.category
            effects.append(.record(.audioActivated, guest: id, name: category.description))
            streams.open(id, hasChannel: guest.hasChannel, into: &effects)
        }
        send(.audioActivationFinished(request, refusal: refusal), to: id, guest, into: &effects)
    }

    // MARK: The operator's levers

    /// C9: ambient and soloAmbient sessions are muted while it is on.
    mutating func setSilenceSwitch(_ on: Bool, _ facts: Facts) -> [AudioEffect] {
        guard arbiter.silenceSwitch != on else { return [] }
        arbiter.silenceSwitch = on
        var effects: [AudioEffect] = [.record(.audioSilenceSwitch, name: on ? "on" : "off")]
        changed(facts, into: &effects)
        return effects
    }

    /// C12: the host's volume, the last factor of every session's level.
    mutating func setVolume(_ volume: Double, _ facts: Facts) throws(HostCommandError) -> [AudioEffect] {
        guard volume >= 0, volume <= 1 else { throw .invalid("the volume is from 0 to 1, not \(volume)") }
        arbiter.volume = volume
        var effects: [AudioEffect] = [.record(.audioVolume, name: String(volume))]
        changed(facts, into: &effects)
        return effects
    }

    /// C10: a device is plugged in (the sessions it takes over hear newDeviceAvailable), or
    /// unplugged (those that used it hear oldDeviceUnavailable, and a playing guest should pause;
    /// those left with nothing to play on are interrupted).
    mutating func setDevice(_ device: AudioDevice, plugged: Bool, _ facts: Facts) throws(HostCommandError)
        -> [AudioEffect]
    {
        var effects: [AudioEffect] = []
        do throws(AudioRouteError) {
            let notices = try plugged ? routes.plug(device) : routes.unplug(device)
            effects.append(.record(.audioDevice, name: plugged ? "plugged" : "unplugged", message: device.description))
            tell(notices, facts, into: &effects)
        } catch {
            throw HostCommandError(error.description)
        }
        changed(facts, into: &effects)
        return effects
    }

    /// C5, C6: an incoming call, which beats every guest: every active session is interrupted and
    /// none can be activated until it ends.
    mutating func beginCall(_ facts: Facts) throws(HostCommandError) -> [AudioEffect] {
        guard !arbiter.callInProgress else { throw HostCommandError("a call is already under way") }
        var effects: [AudioEffect] = [.record(.audioCall, name: "began")]
        tell(arbiter.beginCall(), facts, into: &effects)
        changed(facts, into: &effects)
        return effects
    }

    /// The call ended: the sessions it interrupted hear so, with should-resume when the operator
    /// says so and only for those that were playing (C7).
    mutating func endCall(shouldResume: Bool, _ facts: Facts) throws(HostCommandError) -> [AudioEffect] {
        guard arbiter.callInProgress else { throw HostCommandError("no call is under way") }
        var effects: [AudioEffect] = [
            .record(.audioCall, name: "ended", message: shouldResume ? "should resume" : nil)
        ]
        tell(arbiter.endCall(shouldResume: shouldResume), facts, into: &effects)
        changed(facts, into: &effects)
        return effects
    }

    /// C15: the host's audio engine restarted: every running guest hears so, its session as at
    /// launch, and sets it up again.
    mutating func resetMediaServices(_ facts: Facts) -> [AudioEffect] {
        var effects: [AudioEffect] = [.record(.audioReset)]
        arbiter.resetSessions()
        for id in order {
            guard let guest = facts(id), guest.phase == .launching || guest.phase == .running else { continue }
            send(.mediaServicesReset, to: id, guest, into: &effects)
            tell(routes.configure(id, .initial), facts, into: &effects)
        }
        changed(facts, into: &effects)
        return effects
    }

    // MARK: Ticks of the clock

    /// `token` fell due. One that is no longer current does nothing.
    mutating func tick(_ token: AudioToken, _ facts: Facts) -> [AudioEffect] {
        switch token.alarm {
        case .meters:
            return streams.metersDue(token)
        case .routeCheck(let id):
            // C10: a guest playing when its output went away should pause; a grace later, the host looks.
            guard guests[id]?.conformanceCheck == token else { return [] }
            guests[id]?.conformanceCheck = nil
            let session = arbiter.session(of: id)
            guard session.active, session.rendering, facts(id).map({ !$0.stopped }) == true else { return [] }
            guests[id]?.nonconformances += 1
            return [
                .record(
                    .audioNonconforming, guest: id, name: "C10",
                    message: "still playing \(policy.routeConformanceGrace.secondsText) after its output went away")
            ]
        }
    }

    // MARK: What the mixer says (C13)

    /// The mixer could make no stream for the guest.
    mutating func streamRefused(_ id: String, _ error: AudioMixerError) -> [AudioEffect] {
        streams.refused(id, error)
    }

    /// The guest's runtime answered its stream: open, it is mixed as its session says, and the
    /// meters are read.
    mutating func streamAnswered(_ id: String, _ reply: GuestReply, _ facts: Facts) -> [AudioEffect] {
        var effects: [AudioEffect] = []
        guard streams.answered(id, reply, into: &effects) else { return effects }
        if let guest = facts(id) { updateMix(id, guest, into: &effects) }
        streams.scheduleMeters(serial: &serial, into: &effects)
        return effects
    }

    /// A reading of the mixer's meters (`AudioEffect.readMeters`); `busy` reads a guest's audio
    /// thread's CPU time.
    mutating func metersRead(_ meters: AudioMeters, at now: Duration, busy: (String, Int32) -> Duration?)
        -> [AudioEffect]
    {
        var effects: [AudioEffect] = []
        streams.read(
            meters, at: now, policy: Self.renderDeadlinePolicy, busy: busy, serial: &serial, into: &effects)
        return effects
    }

    /// The core tried to demote the guest's audio thread (`AudioEffect.demote`).
    mutating func demoted(_ id: String, thread: Int32, _ demotion: RenderDeadlineWatch.Demotion, succeeded: Bool)
        -> [AudioEffect]
    {
        streams.demoted(id, thread: thread, demotion, succeeded: succeeded)
    }

    /// Tells the mixer how the session sounds now: mixed while active and the guest runs (C6,
    /// B7), at the arbiter's gain (C8, C9, C12).
    private mutating func updateMix(_ id: String, _ guest: AudioFacts, into effects: inout [AudioEffect]) {
        guard streams.state(of: id) == .open else { return }
        let session = arbiter.session(of: id)
        let category = session.configuration.category
        // B9: a guest without the background audio capability is silent in background, whatever
        // session it activates there (a background task keeps it running, not sounding).
        let mayPlay = guest.inForeground || (guest.declaresBackgroundAudio && category.playsInBackground)
        let mixed = session.active && !guest.stopped && mayPlay
        // C13: a record session has no output: the mixer asks it for periods, to hand it the
        // input, and never lets it be heard.
        let audible = mixed && category != .record
        let mix = AudioMix(
            mixed: mixed, gain: audible ? arbiter.level(of: id).gain : 0,
            recordsInput: category == .record || category == .playAndRecord)
        streams.update(id, to: mix, into: &effects)
    }

    // MARK: Telling guests

    /// Delivers an audio call, or holds it while the guest is suspended (B8, C14). A player the
    /// host suspended because its interruption left it idle (B6) is woken, in background, when
    /// it should resume: it hears so and may take up its sound again (B9), as a phone's player
    /// does after a call; a guest the operator or the watchdog stopped stays stopped.
    private mutating func send(
        _ call: GuestCall, to id: String, _ guest: AudioFacts?, into effects: inout [AudioEffect]
    ) {
        guard let guest, guest.hasChannel else { return }
        guard guest.stopped else { return effects.append(.deliver(call, to: id)) }
        guests[id, default: GuestAudioState()].held.hold(call)
        if case .audioInterruptionEnded(_, shouldResume: true) = call, guest.suspendedAutomatically,
            guest.declaresBackgroundAudio
        {
            effects.append(.resume(id))
        }
    }

    private mutating func tell(_ notices: [AudioNotice], _ facts: Facts, into effects: inout [AudioEffect]) {
        for notice in notices {
            switch notice {
            case .interruptionBegan(let id, let reason):
                effects.append(.record(.audioInterrupted, guest: id, name: reason.rawValue))
                send(.audioInterruptionBegan(reason), to: id, facts(id), into: &effects)
            case .interruptionEnded(let id, let reason, let shouldResume):
                effects.append(
                    .record(
                        .audioInterruptionEnded, guest: id, name: reason.rawValue,
                        message: shouldResume ? "should resume" : nil))
                send(.audioInterruptionEnded(reason, shouldResume: shouldResume), to: id, facts(id), into: &effects)
            case .secondaryAudioHint(let id, let silence):
                effects.append(.record(.audioHint, guest: id, name: silence ? "silence" : "resume"))
                send(.secondaryAudioHint(silence: silence), to: id, facts(id), into: &effects)
            }
        }
    }

    private mutating func tell(_ notices: [AudioRouteNotice], _ facts: Facts, into effects: inout [AudioEffect]) {
        for notice in notices {
            let id = notice.guest
            effects.append(
                .record(
                    .audioRoute, guest: id, name: notice.reason.rawValue,
                    message: "\(notice.previous) -> \(notice.current)"))
            guard let guest = facts(id) else { continue }
            send(
                .audioRouteChanged(notice.reason, previous: notice.previous, current: notice.current), to: id, guest,
                into: &effects)
            if notice.reason == .oldDeviceUnavailable { checkPauses(id, guest, into: &effects) }
            if lostItsRoute(notice) { tell(arbiter.interrupt(id, reason: .routeGone), facts, into: &effects) }
        }
    }

    /// C6: nothing is left of what the session plays on (or, recording, records from).
    private func lostItsRoute(_ notice: AudioRouteNotice) -> Bool {
        let category = arbiter.session(of: notice.guest).configuration.category
        if category == .record { return notice.previous.input != .none && notice.current.input == .none }
        return notice.previous.output != .none && notice.current.output == .none
    }

    /// C10: the guest paused (or let its session go) since its output went away, as it should:
    /// the check is over, so that what its user does next (play again) is not held against it.
    private mutating func paused(_ id: String, into effects: inout [AudioEffect]) {
        guard let check = guests[id]?.conformanceCheck else { return }
        guests[id]?.conformanceCheck = nil
        effects.append(.cancel(check))
    }

    /// C10: a guest playing when its output went away should pause; a grace later, the host looks.
    private mutating func checkPauses(_ id: String, _ guest: AudioFacts, into effects: inout [AudioEffect]) {
        let session = arbiter.session(of: id)
        guard session.active, session.rendering, guest.hasChannel else { return }
        if let pending = guests[id]?.conformanceCheck { effects.append(.cancel(pending)) }
        let check = AudioToken.next(.routeCheck(guest: id), serial: &serial)
        guests[id, default: GuestAudioState()].conformanceCheck = check
        effects.append(.schedule(check, after: policy.routeConformanceGrace))
    }

    /// After every change: the secondary-audio hints (C11), ducking and muting as events (C8,
    /// C9), background audio keeping guests running or not (B9), and the mix (C13).
    /// Only guests that have touched their session can have changed: the others are inactive,
    /// at full level, and keep nobody running, so a host whose guests play no audio does no more
    /// per transition than before.
    private mutating func changed(_ facts: Facts, into effects: inout [AudioEffect]) {
        guard !arbiter.guests.isEmpty else { return }
        tell(arbiter.secondaryAudioHints(isForeground: { facts($0)?.inForeground ?? false }), facts, into: &effects)
        for id in arbiter.guests {
            guard let guest = facts(id), guest.phase != .notRunning else { continue }
            let level = arbiter.level(of: id)
            let session = arbiter.session(of: id)
            let muted = level.muted && session.active
            let plays = arbiter.playsInBackground(id, declaresBackgroundAudio: guest.declaresBackgroundAudio)
            guests[id, default: GuestAudioState()].levelChanged(
                id, ducked: level.ducked, muted: muted, playsInBackground: plays, into: &effects)
            updateMix(id, guest, into: &effects)
        }
    }
}
