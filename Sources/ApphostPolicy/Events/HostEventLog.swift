import ApphostModel
import ApphostVocabulary
import Foundation

/// Where the policy's parts record what happens (CONTRACT A5): each entry stamped with the
/// clock's time and handed to the host's event stream, so that every part writes the same way.
struct HostEventLog: Sendable {
    let clock: any HostClock
    let emit: @Sendable (HostEvent) -> Void

    func record(
        _ kind: HostEvent.Kind, guest: String? = nil, scene: SceneHandle? = nil, session: String? = nil,
        from: String? = nil, to: String? = nil, reason: TransitionReason? = nil, name: String? = nil,
        level: GuestLogLevel? = nil, message: String? = nil
    ) {
        emit(
            HostEvent(
                time: clock.now(), kind: kind, guest: guest, scene: scene, session: session, from: from, to: to,
                reason: reason, name: name, level: level, message: message))
    }
}
