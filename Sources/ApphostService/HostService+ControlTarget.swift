import ApphostControl
import ApphostModel
import ApphostPolicy
import ApphostVocabulary
import Foundation

/// What control commands ask of the host, carried out by the policy core on the host queue,
/// where commands are applied; the bookkeeping (status, metrics, operations) is in HostService.
extension HostService {
    public func guestID(named name: String) throws(HostCommandError) -> String { try core.guestID(named: name) }

    public func switchTo(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        core.switchTo(id, completion: completion)
    }

    public func openScene(_ id: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void) {
        core.scenes.openScene(id, completion: completion)
    }

    public func suspend(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        core.suspend(id, completion: completion)
    }

    public func resume(_ id: String, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void) {
        core.resume(id, completion: completion)
    }

    public func terminate(_ id: String, completion: @escaping @Sendable (Result<String?, HostCommandError>) -> Void) {
        core.terminate(id, completion: completion)
    }

    public func callAction(
        guest: String, action: String, arguments: ActionArguments,
        completion: @escaping @Sendable (Result<ActionValue?, HostCommandError>) -> Void
    ) {
        core.actions.call(guest: guest, action: action, arguments: arguments, completion: completion)
    }

    public func closeScene(_ scene: String, completion: @escaping @Sendable (Result<String, HostCommandError>) -> Void)
    {
        core.scenes.closeScene(scene, completion: completion)
    }

    public func dismissModal(scene: String, completion: @escaping @Sendable (Result<Bool, HostCommandError>) -> Void) {
        core.scenes.dismissModal(scene: scene, completion: completion)
    }

    public func performAction(
        scene: String, action: String, payload: Data,
        completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        core.scenes.performAction(scene: scene, action: action, payload: payload, completion: completion)
    }

    public var layout: Layout { core.status().layout }

    public func changeLayout(
        _ change: LayoutChange, completion: @escaping @Sendable (Result<Void, HostCommandError>) -> Void
    ) {
        core.scenes.changeLayout(change, completion: completion)
    }

    public func home() { core.scenes.home() }
    public func showAlert() throws(HostCommandError) { try core.scenes.alert(shown: true) }
    public func dismissAlert() throws(HostCommandError) { try core.scenes.alert(shown: false) }

    public func memoryWarning(level: MemoryPressure) { core.memory.take(.warning(level)) }
    public func setSilenceSwitch(_ on: Bool) { try? core.audio.apply(.silenceSwitch(on)) }  // never refused
    public func setVolume(_ volume: Double) throws(HostCommandError) { try core.audio.apply(.volume(volume)) }
    public func setAudioDevice(_ device: AudioDevice, plugged: Bool) throws(HostCommandError) {
        try core.audio.apply(.device(device, plugged: plugged))
    }
    public func beginAudioCall() throws(HostCommandError) { try core.audio.apply(.beginCall) }
    public func endAudioCall(shouldResume: Bool) throws(HostCommandError) {
        try core.audio.apply(.endCall(shouldResume: shouldResume))
    }
    public func resetMediaServices() { try? core.audio.apply(.resetMediaServices) }  // never refused
}
