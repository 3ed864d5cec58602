import ApphostVocabulary
import Synchronization

/// Session ids for tests: UUID-shaped and as varied as random ones, from a fixed seed, so that a
/// test's ids are the same in every run.
public final class SeededSessionIDs: SessionIDSource {
    private let state: Mutex<UInt64>

    public init(seed: UInt64 = 0x5eed) { state = Mutex(seed) }

    public func next() -> String {
        let (high, low) = state.withLock { state in (Self.splitMix(&state), Self.splitMix(&state)) }
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text.suffix(digits)
        }
        // Version 4 and variant bits, as UUIDs have, so that ids look like the host's.
        let version = (high & 0xffff_ffff_ffff_0fff) | 0x4000
        let variant = (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        return "\(hex(version >> 32, 8))-\(hex((version >> 16) & 0xffff, 4))-\(hex(version & 0xffff, 4))-"
            + "\(hex(variant >> 48, 4))-\(hex(variant & 0xffff_ffff_ffff, 12))"
    }

    /// SplitMix64: a small generator whose outputs are well spread for any seed.
    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
