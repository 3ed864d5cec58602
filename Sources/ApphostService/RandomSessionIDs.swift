import ApphostVocabulary
import Foundation

/// Session ids for a real host: random UUIDs, lower-case, so that two hosts' sessions, or a
/// session made after a restart, never share an id.
public final class RandomSessionIDs: SessionIDSource {
    public init() {}
    public func next() -> String { UUID().uuidString.lowercased() }
}
