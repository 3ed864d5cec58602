import ApphostCore
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
