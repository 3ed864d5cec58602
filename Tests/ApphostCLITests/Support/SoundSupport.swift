import ApphostSoundTesting
import Foundation
import XCTest

/// What the tests of real sound share: the periods the host's `audio-mix` events name, a graceful
/// stop that finishes the WAV file, and sox's measure of a stretch of periods of it.
extension HostTestCase {
    /// Frames per period at the host's default format.
    static var periodFrames: Int { 480 }

    /// The period an `audio-mix` event of `guest` named `name` ("mixed", "silent") says, waiting
    /// for it from `mark` on, and whose message holds `text` when given (a gain, say).
    func mixPeriod(
        _ host: HostProcess, _ guest: String, _ name: String, after mark: Int = 0, saying text: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        let event = try host.waitForEvent("audio-mix \(name) of \(guest)", after: mark, file: file, line: line) {
            event in
            guard event.kind == .audioMix, event.guest == guest, event.name == name else { return false }
            return text.map { (event.message ?? "").contains($0) } ?? true
        }
        let period = event.message?.split(separator: " ").last.flatMap { Int($0) }
        return try XCTUnwrap(period, "no period in \(event.humanLine)", file: file, line: line)
    }

    /// Stops the host as an operator does (SIGINT), which finishes the file.
    func stop(_ host: HostProcess, file: StaticString = #filePath, line: UInt = #line) throws {
        host.signal(SIGINT)
        XCTAssertEqual(try host.waitForExit(file: file, line: line), 0, file: file, line: line)
    }

    /// sox's stats of periods [from, to) of `wav` (to the end without `to`), after `effects`
    /// (a band filter, say).
    func stats(_ wav: String, periods from: Int, _ to: Int? = nil, effects: [String] = []) throws -> Sox.Stats {
        var trim = ["trim", "\(from * Self.periodFrames)s"]
        if let to { trim.append("=\(to * Self.periodFrames)s") }
        return try Sox.stats(of: wav, effects: trim + effects)
    }

    /// The mixer's periods so far, from `ps --json`.
    func mixerPeriods(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        Int(try status(file: file, line: line).audio?.mixer?.periods ?? 0)
    }
}
