import ApphostModel
import ApphostVocabulary

/// Where a guest is in its life, as `GuestLifecycle` keeps it in its record: the facts every part
/// needs of a guest at the moment of an input, which each part's facts carry (`BackgroundFacts`,
/// `AudioFacts`, `MemoryFacts`) beside what only that part needs.
struct GuestLife: Equatable, Sendable {
    var phase: GuestPhase
    /// It has a channel (it was opened and not yet unloaded).
    var hasChannel: Bool
    /// Whether the host lets its code run (B7), and which change of that is under way.
    var suspension: Suspension

    /// Stopped by the host, or being suspended or resumed: no call reaches it (B7, B8).
    var stopped: Bool { suspension != .running }
    /// Stopped, or being resumed: no code of it runs until it is running again.
    var suspended: Bool { suspension == .suspended || suspension == .resuming }
    var changingSuspension: Bool { suspension == .suspending || suspension == .resuming }
    /// It runs and can hear a call, or be ended.
    var running: Bool { phase == .running && hasChannel }
    /// It runs and its code may run: where a budget's timers act.
    var runsFreely: Bool { running && !stopped }
}

extension GuestLife {
    /// Where `guest` is now.
    init(_ guest: GuestRecord) {
        self.init(phase: guest.phase, hasChannel: guest.channel != nil, suspension: guest.suspension)
    }
}

/// A part's facts that carry a `GuestLife`: its members read (and, in tests, are set) as the
/// facts' own, `facts.phase` for `facts.life.phase`.
@dynamicMemberLookup
protocol CarriesGuestLife {
    var life: GuestLife { get set }
}

extension CarriesGuestLife {
    subscript<T>(dynamicMember member: WritableKeyPath<GuestLife, T>) -> T {
        get { life[keyPath: member] }
        set { life[keyPath: member] = newValue }
    }

    subscript<T>(dynamicMember member: KeyPath<GuestLife, T>) -> T { life[keyPath: member] }
}
