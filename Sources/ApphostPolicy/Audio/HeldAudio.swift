import ApphostModel
import ApphostVocabulary

/// B8, C14: the audio calls that wait for a suspended guest, coalesced: every activation answer
/// (its SDK waits for each), one interruption began however many happened, the latest ended after
/// it, one route change from the first route it missed to the latest, the latest secondary-audio
/// hint, and media services resets, in the order they happened.
struct HeldAudio {
    private(set) var calls: [GuestCall] = []

    mutating func hold(_ call: GuestCall) {
        switch call {
        case .audioInterruptionBegan:
            // One began: a session already told it is interrupted needs no second.
            if let began = calls.lastIndex(where: \.isInterruptionBegan),
                !calls[began...].contains(where: \.isInterruptionEnded)
            {
                return
            }
        case .audioInterruptionEnded:
            calls.removeAll(where: \.isInterruptionEnded)
        case .audioRouteChanged(let reason, var previous, let current):
            if let index = calls.firstIndex(where: \.isRouteChange),
                case .audioRouteChanged(_, let first, _) = calls.remove(at: index)
            {
                previous = first
            }
            // Back where it was: nothing changed for the guest.
            guard previous != current else { return }
            return calls.append(.audioRouteChanged(reason, previous: previous, current: current))
        case .secondaryAudioHint:
            calls.removeAll(where: \.isSecondaryAudioHint)
        default:
            break
        }
        calls.append(call)
    }

    /// What to deliver on resume, in order; nothing is held after.
    mutating func take() -> [GuestCall] {
        defer { calls = [] }
        return calls
    }
}

extension GuestCall {
    fileprivate var isInterruptionBegan: Bool {
        if case .audioInterruptionBegan = self { true } else { false }
    }
    fileprivate var isInterruptionEnded: Bool {
        if case .audioInterruptionEnded = self { true } else { false }
    }
    fileprivate var isRouteChange: Bool {
        if case .audioRouteChanged = self { true } else { false }
    }
    fileprivate var isSecondaryAudioHint: Bool {
        if case .secondaryAudioHint = self { true } else { false }
    }
}
