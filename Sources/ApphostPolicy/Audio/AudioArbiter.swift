import ApphostModel

/// What guests must hear of the arbiter's decisions, in order.
public enum AudioNotice: Sendable, Equatable {
    /// The session is already inactive and no longer rendered (C6).
    case interruptionBegan(guest: String, reason: AudioInterruptionReason)
    /// C7: `shouldResume` only for a session that was rendering sound when interrupted.
    case interruptionEnded(guest: String, reason: AudioInterruptionReason, shouldResume: Bool)
    /// C11: secondary audio (a game's soundtrack) should be silenced, or may play again.
    case secondaryAudioHint(guest: String, silence: Bool)
}

/// How loud a session is in the mix, and why (C8, C9, C12).
public struct AudioLevel: Sendable, Equatable {
    /// Lowered by another active session with duckOthers (C8).
    public var ducked: Bool
    /// Muted by the silence switch (C9).
    public var muted: Bool
    /// The factor its samples are mixed with: the host's volume times the guest's gain, 0.1
    /// (-20 dB) when ducked, 0 when muted or inactive.
    public var gain: Double
}

/// The guests' audio sessions and who may sound (CONTRACT C1, C5 to C9, C12, B9): one session per
/// guest, activation and its refusals, interruptions and their ends, ducking, the silence switch
/// and the gains of the mix. It decides and says what guests must hear; the core delivers.
struct AudioArbiter {
    /// One guest's session.
    struct Session: Equatable {
        var configuration = AudioConfiguration.initial
        var active = false
        /// The guest renders sound into it (C7: only such sessions are told to resume).
        var rendering = false
        /// The guest's own relative gain, 0 to 1 (C12).
        var gain = 1.0
        /// Why it is interrupted, by whom and whether it was rendering then; nil when it is not.
        var interruption: Interruption?
        /// Its interruption ended with should-resume: it may take up again what it played, even
        /// in background, where it could not start anew (C5). Until it activates or changes.
        var mayResume = false
    }

    struct Interruption: Equatable {
        var reason: AudioInterruptionReason
        /// The guest whose session interrupted it; nil for a call or the background.
        var by: String?
        var wasRendering: Bool
    }

    /// C8: -20 dB, as an amplitude factor.
    static let duckGain = 0.1

    /// Sessions in the order their guests first had one, so that notices come in a steady order.
    private(set) var guests: [String] = []
    private var sessions: [String: Session] = [:]
    /// The operator's call-like interruption is under way.
    private(set) var callInProgress = false
    /// C9.
    var silenceSwitch = false
    /// C11: the guests last told that secondary audio should be silenced.
    private var silencingSecondary: Set<String> = []
    /// The host's volume, 0 to 1 (C12).
    var volume = 1.0 {
        didSet { volume = min(max(volume, 0), 1) }
    }

    /// Every guest's session starts as soloAmbient, inactive (C1).
    func session(of guest: String) -> Session { sessions[guest] ?? Session() }

    /// C1: the whole configuration at once (setting a category resets the options). An active
    /// session that stops mixing interrupts the others as its activation would have.
    mutating func configure(_ guest: String, _ configuration: AudioConfiguration) -> [AudioNotice] {
        update(guest) {
            $0.configuration = configuration
            $0.mayResume = false
        }
        return session(of: guest).active ? interruptOthers(for: guest) : []
    }

    /// C5: refused while a call holds audio, and for a non-mixing session of a guest in
    /// background, unless it takes up what an interruption stopped, having heard it should
    /// resume (as a phone's player resumes after a call with its screen off); otherwise the
    /// session is active and interrupts what it must.
    mutating func activate(_ guest: String, inBackground: Bool) throws(AudioActivationRefusal) -> [AudioNotice] {
        let session = session(of: guest)
        if callInProgress { throw .callInProgress }
        if inBackground, !session.configuration.mixes, !session.mayResume { throw .nonMixingInBackground }
        update(guest) {
            $0.active = true
            $0.interruption = nil
            $0.mayResume = false
        }
        return interruptOthers(for: guest)
    }

    /// C7: with `notifyOthers`, the sessions it interrupted hear that their interruption ended,
    /// with should-resume for those that were rendering; without, they hear nothing more.
    mutating func deactivate(_ guest: String, notifyOthers: Bool) -> [AudioNotice] {
        update(guest) {
            $0.active = false
            $0.rendering = false
            $0.mayResume = false
        }
        return endInterruptions(where: { $0.by == guest }, notify: notifyOthers, shouldResume: true)
    }

    /// The guest says whether it renders sound into its session (C7); only an active session can.
    mutating func setRendering(_ guest: String, _ rendering: Bool) {
        update(guest) { $0.rendering = rendering && $0.active }
    }

    /// C12: the guest's relative gain, clamped to 0...1.
    mutating func setGain(_ guest: String, _ gain: Double) {
        update(guest) { $0.gain = min(max(gain, 0), 1) }
    }

    /// The operator's call-like interruption: every active session is interrupted, and no session
    /// can be activated until it ends (C5, C6).
    mutating func beginCall() -> [AudioNotice] {
        callInProgress = true
        return interrupt(guests.filter { session(of: $0).active }, reason: .call, by: nil)
    }

    /// The call ended: the sessions it interrupted hear so, should-resume as the operator says,
    /// and only for those that were rendering (C7).
    mutating func endCall(shouldResume: Bool) -> [AudioNotice] {
        guard callInProgress else { return [] }
        callInProgress = false
        return endInterruptions(where: { $0.reason == .call }, notify: true, shouldResume: shouldResume)
    }

    /// B9: a guest going to background keeps its session only if it declares background audio and
    /// its category plays in background; otherwise the session is interrupted.
    mutating func wentToBackground(_ guest: String, declaresBackgroundAudio: Bool) -> [AudioNotice] {
        let session = session(of: guest)
        guard session.active, !(declaresBackgroundAudio && session.configuration.category.playsInBackground) else {
            return []
        }
        return interrupt([guest], reason: .appWentToBackground, by: nil)
    }

    /// B9: the session keeps its guest running in background while it plays or records.
    func playsInBackground(_ guest: String, declaresBackgroundAudio: Bool) -> Bool {
        let session = session(of: guest)
        return declaresBackgroundAudio && session.active && session.rendering
            && session.configuration.category.playsInBackground
    }

    /// C14, C10: the guest was suspended, or its session's output went away: an active session is
    /// interrupted for `reason`.
    mutating func interrupt(_ guest: String, reason: AudioInterruptionReason) -> [AudioNotice] {
        session(of: guest).active ? interrupt([guest], reason: reason, by: nil) : []
    }

    /// C15: the audio engine restarted: every session is as at launch (soloAmbient, inactive, a
    /// gain of 1) and nothing is interrupted any more; a call under way stays. Every running guest
    /// hears of it, whether it had a session here or not, so the core tells them.
    mutating func resetSessions() {
        for guest in guests { sessions[guest] = Session() }
        silencingSecondary = []
    }

    /// The guest is gone: its session ends, and those it interrupted hear so as from a
    /// deactivation with notify-others, since a guest that ended cannot say it.
    mutating func remove(_ guest: String) -> [AudioNotice] {
        let notices = deactivate(guest, notifyOthers: true)
        sessions[guest] = nil
        guests.removeAll { $0 == guest }
        return notices
    }

    /// C11: tells each guest in `foreground` with an active session, when it changes, whether
    /// secondary audio should be silenced: it should while another guest's non-mixing session
    /// plays. A guest that leaves the foreground or deactivates hears no more of it.
    mutating func secondaryAudioHints(foreground: Set<String>) -> [AudioNotice] {
        secondaryAudioHints(isForeground: foreground.contains)
    }

    /// C11, asking of each guest with a session only whether it is in the foreground.
    mutating func secondaryAudioHints(isForeground: (String) -> Bool) -> [AudioNotice] {
        var notices: [AudioNotice] = []
        for guest in guests {
            guard isForeground(guest), session(of: guest).active else {
                silencingSecondary.remove(guest)
                continue
            }
            let silence = guests.contains { other in
                let session = self.session(of: other)
                return other != guest && session.active && session.rendering && !session.configuration.mixes
            }
            guard silence != silencingSecondary.contains(guest) else { continue }
            if silence { silencingSecondary.insert(guest) } else { silencingSecondary.remove(guest) }
            notices.append(.secondaryAudioHint(guest: guest, silence: silence))
        }
        return notices
    }

    /// C8, C9, C12: the session's place in the mix.
    func level(of guest: String) -> AudioLevel {
        let session = session(of: guest)
        let ducked =
            session.active
            && guests.contains {
                $0 != guest && self.session(of: $0).active && self.session(of: $0).configuration.ducksOthers
            }
        let muted = silenceSwitch && session.configuration.category.isSilencedBySwitch
        let gain = session.active && !muted ? volume * session.gain * (ducked ? Self.duckGain : 1) : 0
        return AudioLevel(ducked: ducked, muted: muted, gain: gain)
    }

    // MARK: Helpers

    /// C5, C4: a non-mixing session interrupts the other active non-mixing ones; one that ducks
    /// or pauses spoken audio interrupts the active spoken-audio ones.
    private mutating func interruptOthers(for guest: String) -> [AudioNotice] {
        let configuration = session(of: guest).configuration
        let victims = guests.filter { other in
            let session = self.session(of: other)
            guard other != guest, session.active else { return false }
            return (!configuration.mixes && !session.configuration.mixes)
                || (configuration.pausesSpokenAudio && session.configuration.isSpokenAudio)
        }
        return interrupt(victims, reason: .otherSession, by: guest)
    }

    /// C6: each is inactive, no longer rendered, before it hears of it.
    private mutating func interrupt(_ victims: [String], reason: AudioInterruptionReason, by: String?)
        -> [AudioNotice]
    {
        victims.map { victim in
            update(victim) {
                $0.interruption = Interruption(reason: reason, by: by, wasRendering: $0.rendering)
                $0.active = false
                $0.rendering = false
                $0.mayResume = false
            }
            return .interruptionBegan(guest: victim, reason: reason)
        }
    }

    private mutating func endInterruptions(
        where matches: (Interruption) -> Bool, notify: Bool, shouldResume: Bool
    ) -> [AudioNotice] {
        var notices: [AudioNotice] = []
        for guest in guests {
            guard let interruption = session(of: guest).interruption, matches(interruption) else { continue }
            let resume = notify && shouldResume && interruption.wasRendering
            update(guest) {
                $0.interruption = nil
                $0.mayResume = resume
            }
            if notify {
                notices.append(.interruptionEnded(guest: guest, reason: interruption.reason, shouldResume: resume))
            }
        }
        return notices
    }

    private mutating func update(_ guest: String, _ change: (inout Session) -> Void) {
        if sessions[guest] == nil { guests.append(guest) }
        change(&sessions[guest, default: Session()])
    }
}
