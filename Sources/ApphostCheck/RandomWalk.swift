import ApphostControl
import ApphostModel
import ApphostVocabulary
import Foundation

/// Robustness: a seeded random walk of what operators and the system do to a guest (CONTRACT A2,
/// A4, B7, S4, C5, C10, C15, with A3 and A1 for a termination and relaunch), after which the
/// guest must be alive, answering, and back in the foreground. The same seed makes the same
/// walk: `apphost check --seed N` reproduces a failure.
enum RandomWalk {
    /// How many steps a walk takes: every kind at least once, the rest drawn at random.
    static let steps = 40

    static let test = CheckTest(
        id: "random-walk", rules: ["A2", "A4", "B7", "S4", "C5", "C10", "C15"],
        summary: "survives a seeded random walk of switches, home, suspension, memory warnings, alerts, "
            + "audio routes and interruptions, and a relaunch (--seed N repeats it)",
        skipReason: { _ in nil },
        body: { host, descriptor, policy throws(CheckFailure) in
            var generator = SplitMix64(seed: policy.seed)
            let walk = Step.walk(steps: steps, using: &generator)
            let id = descriptor.id
            for (index, step) in walk.enumerated() {
                let mark = try step.take(on: id, in: host, policy: policy)
                if let death = host.death(of: id, after: mark) {
                    throw CheckFailure(
                        expected: "it to survive step \(index + 1) of \(walk.count) (\(step), seed \(policy.seed))",
                        observed: death.untimedLine)
                }
            }
            // Back in the foreground and answering, whatever the walk left.
            let mark = host.mark
            _ = try host.send(AlertCommand(dismiss: true), within: policy.launchLimit)
            _ = try host.send(AudioInterruptCommand(begin: false), within: policy.launchLimit)
            if case .failure(let error) = try host.send(SwitchCommand(guest: id), within: policy.launchLimit),
                error.kind != .conflict
            {
                throw CheckFailure(expected: "switching to it after the walk", observed: error.description)
            }
            try LifecycleChecks.alive(
                id, in: host, after: mark, policy: policy, doing: "the walk (seed \(policy.seed))")
        })

    /// One thing that happens to the guest.
    enum Step: CaseIterable, CustomStringConvertible {
        case switchTo, home, suspend, resume, memoryWarning, alert, dismissAlert, unplug, plug, interrupt
        case endInterruption, mediaReset, relaunch

        /// Every kind once, then random ones, shuffled.
        static func walk(steps: Int, using generator: inout SplitMix64) -> [Step] {
            var walk = allCases
            while walk.count < steps { walk.append(allCases[Int(generator.next() % UInt64(allCases.count))]) }
            for index in stride(from: walk.count - 1, to: 0, by: -1) {
                walk.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            return walk
        }

        var description: String {
            switch self {
            case .switchTo: "switch"
            case .home: "home"
            case .suspend: "suspend"
            case .resume: "resume"
            case .memoryWarning: "memory-warning"
            case .alert: "alert"
            case .dismissAlert: "alert --dismiss"
            case .unplug: "unplug the headphones"
            case .plug: "plug the headphones in"
            case .interrupt: "an audio interruption"
            case .endInterruption: "the interruption's end"
            case .mediaReset: "a media services reset"
            case .relaunch: "terminate and relaunch"
            }
        }

        /// Takes the step; a refusal (suspending a guest that is suspended, say) is part of the
        /// walk, not a failure: only what the guest does is judged. Returns the mark from which a
        /// death counts against the step: for a relaunch, from its termination on, as how a guest
        /// terminates is the terminate test's to judge.
        func take(on id: String, in host: CheckHost, policy: CheckPolicy) throws(CheckFailure) -> Int {
            let limit = policy.terminateLimit
            var mark = host.mark
            switch self {
            case .switchTo: _ = try host.send(SwitchCommand(guest: id), within: limit)
            case .home: _ = try host.send(HomeCommand(), within: limit)
            case .suspend: _ = try host.send(SuspendCommand(guest: id), within: limit)
            case .resume: _ = try host.send(ResumeCommand(guest: id), within: limit)
            case .memoryWarning: _ = try host.send(MemoryWarningCommand(level: .warning), within: limit)
            case .alert: _ = try host.send(AlertCommand(), within: limit)
            case .dismissAlert: _ = try host.send(AlertCommand(dismiss: true), within: limit)
            case .unplug: _ = try host.send(AudioRouteCommand(plug: false, device: .headphones), within: limit)
            case .plug: _ = try host.send(AudioRouteCommand(plug: true, device: .headphones), within: limit)
            case .interrupt: _ = try host.send(AudioInterruptCommand(begin: true), within: limit)
            case .endInterruption:
                _ = try host.send(AudioInterruptCommand(begin: false, shouldResume: true), within: limit)
            case .mediaReset: _ = try host.send(AudioResetCommand(), within: limit)
            case .relaunch:
                if case .success = try host.send(TerminateCommand(guest: id), within: limit) {
                    _ = try host.waitFor("its termination", after: mark, within: limit) {
                        $0.kind == .terminated && $0.guest == id
                    }
                    mark = host.mark
                    if case .failure(let error) = try host.send(SwitchCommand(guest: id), within: limit) {
                        throw CheckFailure(expected: "its relaunch", observed: error.description)
                    }
                }
            }
            // What the step set off (callbacks, a transition) has a moment to go wrong.
            Thread.sleep(forTimeInterval: 0.02)
            return mark
        }
    }
}

/// A small seeded generator (SplitMix64), the same walk for the same seed on every machine.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
