import ApphostModel
import ApphostVocabulary
import Foundation
import Logging

/// A test's verdict on one guest.
public enum CheckVerdict: String, Sendable, Codable {
    case pass, fail, skip
}

/// What one test found of one guest: its verdict, and for a failure the evidence (what was
/// expected, what the guest did, the last lines of its log).
public struct CheckResult: Sendable, Codable, Equatable {
    public var test: String
    public var rules: [String]
    public var verdict: CheckVerdict
    public var seconds: Double
    /// Why it was skipped.
    public var reason: String?
    public var expected: String?
    public var observed: String?
    public var log: [String]?
}

/// Every selected test's result on one guest library.
public struct GuestCheck: Sendable, Codable, Equatable {
    public var path: String
    /// The guest's id, once one test launched it.
    public var id: String?
    public var results: [CheckResult]
}

/// Runs tests against guests, each test in a fresh host of its own (`CheckHost`), one after
/// another.
public struct CheckRunner: Sendable {
    public var policy: CheckPolicy
    /// A new opener for each test's host: each opener keeps its own guests, so that one test's
    /// guest never stands in another's way.
    public var makeOpener: @Sendable () throws -> any GuestOpener
    public var logger: Logger
    /// Where `--trace` writes each test's commands and events; nil for nowhere.
    public var trace: CheckTrace?

    public init(
        policy: CheckPolicy = CheckPolicy(), logger: Logger,
        makeOpener: @escaping @Sendable () throws -> any GuestOpener
    ) {
        self.policy = policy
        self.makeOpener = makeOpener
        self.logger = logger
    }

    public func check(path: String, tests: [CheckTest]) -> GuestCheck {
        var check = GuestCheck(path: path, id: nil, results: [])
        for test in tests {
            let started = ContinuousClock.now
            var result = CheckResult(test: test.id, rules: test.rules, verdict: .pass, seconds: 0)
            do throws(CheckFailure) {
                let (id, skipped) = try run(test, on: path)
                check.id = check.id ?? id
                if let skipped {
                    result.verdict = .skip
                    result.reason = skipped
                }
            } catch {
                result.verdict = .fail
                result.expected = error.expected
                result.observed = error.observed
                result.log = error.log
            }
            result.seconds = (ContinuousClock.now - started).timeInterval
            check.results.append(result)
        }
        return check
    }

    /// Runs `test` in a host of its own; the guest's id and why it was skipped, if it was.
    private func run(_ test: CheckTest, on path: String) throws(CheckFailure) -> (String?, String?) {
        let opener: any GuestOpener
        do {
            opener = try makeOpener()
        } catch {
            throw CheckFailure(expected: "a host to run the guest in", observed: "\(error)")
        }
        let host = try CheckHost(
            opener: opener, policy: policy, logger: logger,
            trace: trace.map { ($0, CheckTrace.prefix(guest: path, test: test.id)) })
        defer { host.close() }
        var id: String?
        do throws(CheckFailure) {
            let descriptor = try host.launch(path, within: policy.launchLimit)
            id = descriptor.id
            if let reason = test.skipReason(descriptor) { return (id, reason) }
            do {
                try test.body(host, descriptor, policy)
            } catch let skip as CheckSkip {
                return (id, skip.reason)
            } catch let failure as CheckFailure {
                throw failure
            } catch {
                throw CheckFailure(expected: "the test to run", observed: "\(error)")
            }
            return (id, nil)
        } catch {
            var failure = error
            if let id { failure.log = host.lastLogLines(of: id) }
            throw failure
        }
    }
}
