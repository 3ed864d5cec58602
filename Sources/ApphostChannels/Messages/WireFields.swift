import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import Foundation

/// Why a generated mapping (WireMessageGenerator, from apphost_messages.h) gave no value.
enum WireFieldError: Error, Equatable {
    /// A kind the table does not have.
    case unknownKind
    /// A member its converter refuses: an enum value the host does not know, a configuration
    /// AudioConfiguration does not allow.
    case invalid
    /// A value the wire does not carry whole (an action's declaration, an audio stream made of
    /// descriptors): only the tests, which rebuild calls from their members, meet it.
    case notOnTheWire
}

/// The converters apphost_messages.h's `A(label, converter, members...)` names, from the C
/// members to the Swift value: what makes a report's `GuestEvent` (RuntimeReport). Each throws
/// for a value the host does not know, which the runtime never reports and the wire's decoder
/// refuses. The tests add those that read a call (WireTestFields.swift).
enum WireRead {
    /// A member taken as it is: ids, handles, flags, gains.
    static func value<Value>(_ value: Value) throws -> Value { value }

    /// A C enum's value as the Swift enum of the same raw values.
    static func enumeration<Value: RawRepresentable>(_ raw: Value.RawValue) throws -> Value {
        guard let value = Value(rawValue: raw) else { throw WireFieldError.invalid }
        return value
    }

    /// A guest's text as the runtime passes it on (cut at a character boundary, not checked):
    /// invalid UTF-8 repaired.
    static func text(_ utf8: UnsafePointer<CChar>?, _ length: Int) throws -> String {
        String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
    }

    static func data(_ bytes: UnsafeRawPointer?, _ length: Int) throws -> Data {
        bytes.map { Data(bytes: $0, count: length) } ?? Data()
    }

    /// An id that is 0 for none.
    static func optionalID(_ id: UInt64) throws -> UInt64? { id == 0 ? nil : id }

    static func duration(_ nanoseconds: UInt64) throws -> Duration { WireDuration.duration(nanoseconds) }

    /// Nanoseconds that are 0 for none.
    static func optionalDuration(_ nanoseconds: UInt64) throws -> Duration? {
        nanoseconds == 0 ? nil : WireDuration.duration(nanoseconds)
    }

    static func loadingProgress(_ value: Double) throws -> LoadingProgress {
        guard let progress = LoadingProgress(abiValue: value) else { throw WireFieldError.invalid }
        return progress
    }

    static func audioConfiguration(_ category: Int32, _ mode: Int32, _ options: UInt32) throws -> AudioConfiguration {
        guard let category = AudioCategory(rawValue: category), let mode = AudioMode(rawValue: mode),
            let configuration = try? AudioConfiguration(
                category: category, mode: mode, options: AudioOptions(rawValue: options))
        else { throw WireFieldError.invalid }
        return configuration
    }

    static func outputOverride(_ value: Int32) throws -> AudioOutputOverride {
        guard let outputOverride = AudioABI.outputOverride(value) else { throw WireFieldError.invalid }
        return outputOverride
    }

    /// An audio thread's id, which the wire's decoder keeps within Int32.
    static func threadID(_ id: UInt64) throws -> Int32 { Int32(clamping: id) }

    /// ACTION_RESULT: the result with `flag` set, else the problem the runtime names.
    static func actionOutcome(
        _ flag: Bool, _ value: ahr_value, _ problem: UnsafePointer<CChar>?, _ problemLength: Int
    ) throws -> ActionOutcome {
        guard flag else { return .broke(try text(problem, problemLength)) }
        let (result, valid) = ActionABI.value(of: value)
        return valid ? .returned(result) : .broke("returned a value the host cannot read")
    }
}

/// The converters apphost_messages.h's `A(...)` and `S(...)` name, from the Swift value to the C
/// members: what makes a `GuestCall`'s `ahr_call` (RuntimeCall). A converter of `S(...)` lends
/// pointers that live only while its `body` runs. The tests add those that write a report
/// (WireTestFields.swift).
enum WireWrite {
    static func value<Value>(_ value: Value) -> Value { value }

    /// Lends the text's UTF-8, NUL-terminated, and its length without the NUL.
    static func text<Result>(_ text: String, _ body: (UnsafePointer<CChar>?, Int) -> Result) -> Result {
        text.withCString { body($0, text.utf8.count) }
    }

    /// Lends the bytes; an empty payload reaches the guest as NULL.
    static func payload<Result>(_ payload: Data, _ body: (UnsafeRawPointer?, Int) -> Result) -> Result {
        payload.withUnsafeBytes { bytes in body(bytes.count > 0 ? bytes.baseAddress : nil, bytes.count) }
    }

    /// WILL_CONNECT's members: scene, session id and its length, role, initial state, and the
    /// restoration: none (has_restoration false) when the session saved nothing; an empty saved
    /// state is one, of length 0, so that the guest can tell the two apart (S12).
    static func connection<Result>(
        _ connection: SceneConnection,
        _ body: (UInt64, UnsafePointer<CChar>?, Int, Int32, Int32, Bool, UnsafeRawPointer?, Int) -> Result
    ) -> Result {
        text(connection.sessionID) { sessionID, sessionIDLength in
            guard let restoration = connection.restorationData else {
                return body(
                    connection.scene, sessionID, sessionIDLength, connection.role.rawValue,
                    connection.initialState.rawValue, false, nil, 0)
            }
            return restoration.withUnsafeBytes { bytes in
                body(
                    connection.scene, sessionID, sessionIDLength, connection.role.rawValue,
                    connection.initialState.rawValue, true, bytes.baseAddress, bytes.count)
            }
        }
    }

    static func sceneCallback(_ callback: SceneCallback) -> ahr_scene_callback {
        switch callback {
        case .willEnterForeground: AHR_SCENE_WILL_ENTER_FOREGROUND
        case .didBecomeActive: AHR_SCENE_DID_BECOME_ACTIVE
        case .willResignActive: AHR_SCENE_WILL_RESIGN_ACTIVE
        case .didEnterBackground: AHR_SCENE_DID_ENTER_BACKGROUND
        case .didDisconnect: AHR_SCENE_DID_DISCONNECT
        }
    }

    /// nil (the foreground) is AHR_BACKGROUND_TIME_UNLIMITED.
    static func backgroundTime(_ remaining: Duration?) -> Int64 {
        remaining.map { Int64(clamping: WireDuration.nanoseconds($0)) } ?? Int64(AHR_BACKGROUND_TIME_UNLIMITED)
    }

    static func sceneSize(_ size: SceneSize) -> (UInt32, UInt32, Int32) {
        (size.width, size.height, size.sizeClass.rawValue)
    }

    static func duration(_ duration: Duration) -> UInt64 { WireDuration.nanoseconds(duration) }

    static func count(_ count: Int) -> UInt32 { UInt32(clamping: count) }

    static func rawValue<Value: RawRepresentable>(_ value: Value) -> Value.RawValue { value.rawValue }

    /// SAVE_CONFIRMATION's `stored` is the runtime's `!save_failed`.
    static func negated(_ flag: Bool) -> Bool { !flag }

    static func audioFormat(_ format: AudioFormat) -> (UInt32, UInt32, UInt32) {
        (
            UInt32(clamping: format.sampleRate), UInt32(clamping: format.periodFrames),
            UInt32(clamping: format.channelCount)
        )
    }

    static func audioRoute(_ route: AudioRoute) -> (Int32, Int32) {
        let (output, input) = AudioABI.values(of: route)
        return (output, input)
    }

    static func refusal(_ refusal: AudioActivationRefusal?) -> Int32 { AudioABI.activationResult(refusal) }

    static func interruptionReason(_ reason: AudioInterruptionReason) -> Int32 { AudioABI.value(of: reason) }

    static func routeChangeReason(_ reason: AudioRouteChangeReason) -> Int32 { AudioABI.value(of: reason) }

    /// Borrowed: the stream keeps them open while the call lives, whose consumer takes copies (the
    /// in-process guest dups them for the runtime; the wire sends them with SCM_RIGHTS).
    static func audioStream(_ handle: AudioStreamHandle) -> (Int32, Int32) {
        (handle.stream.memoryDescriptor, handle.stream.wakeDescriptor)
    }

    static func actionIndex(_ index: Int) -> UInt32 { UInt32(index) }

    /// Lends the arguments as `ahr_value`s, whose strings and bytes live only during `body`.
    static func actionArguments<Result>(
        _ arguments: [ActionValue], _ body: (UnsafePointer<ahr_value>?, Int) -> Result
    ) -> Result {
        ActionABI.withValues(arguments) { values in body(values.baseAddress, values.count) }
    }
}
