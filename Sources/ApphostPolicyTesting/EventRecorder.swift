import ApphostVocabulary
import Dispatch
import Foundation

public final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [HostEvent] = []
    public func append(_ event: HostEvent) { lock.withLock { stored.append(event) } }
    public var all: [HostEvent] { lock.withLock { stored } }
    public func of(_ kind: HostEvent.Kind, guest: String? = nil) -> [HostEvent] {
        all.filter { $0.kind == kind && (guest == nil || $0.guest == guest) }
    }
}

/// What the core measured (`HostMeasurement`), in order.
public final class MeasurementRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [HostMeasurement] = []
    public func append(_ measurement: HostMeasurement) { lock.withLock { stored.append(measurement) } }
    public var all: [HostMeasurement] { lock.withLock { stored } }
    /// Each callback round trip as (guest, callback, duration).
    public var roundTrips: [(guest: String, callback: String, duration: Duration)] {
        all.compactMap { measurement in
            switch measurement {
            case .callbackRoundTrip(let guest, let callback, let duration): (guest, callback, duration)
            case .audioBadSamples, .audioMixerOverruns: nil
            }
        }
    }
    /// Each count of bad audio samples (X7) as (guest, count).
    public var badSamples: [(guest: String, count: UInt64)] {
        all.compactMap { measurement in
            switch measurement {
            case .audioBadSamples(let guest, let count): (guest, count)
            case .callbackRoundTrip, .audioMixerOverruns: nil
            }
        }
    }
    /// Each count of the mixer's new overruns (C13).
    public var mixerOverruns: [UInt64] {
        all.compactMap { measurement in
            if case .audioMixerOverruns(let count) = measurement { count } else { nil }
        }
    }
}
