import ApphostGuestRuntime
import ApphostVocabulary
import CApphost

/// A `GuestMessage` as the C guest runtime's `ahr_call`: the one place where the host's calls
/// become the runtime's. The in-process channel hands the call to the runtime as it is; the worker
/// channel encodes it with the wire's codec (wire_messages.h), and the worker hands the decoded
/// call to the same runtime. Each call's members are generated from apphost_messages.h's table
/// (`withTableCall`, by the build plugin WireMessageGenerator), through the converters of
/// `WireWrite`.
enum RuntimeCall {
    /// Calls `body` with `message` as an `ahr_call`, whose strings and bytes live only during the
    /// call: copy what outlives it.
    static func with<Result>(_ message: GuestMessage, _ body: (UnsafePointer<ahr_call>) -> Result) -> Result {
        var call = ahr_call()
        call.app_state = message.appState.rawValue
        call.has_scene_state = message.sceneState != nil
        call.scene_state = message.sceneState?.rawValue ?? 0
        return withTableCall(message.call, &call, body)
    }
}
