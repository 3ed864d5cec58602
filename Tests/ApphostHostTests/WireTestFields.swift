import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import Foundation

@testable import ApphostChannels

// The converters of apphost_messages.h's table for the directions the host never takes, which
// the tests' generated mappings (WireMessageGenerator's `tests` side) call: a report's members
// from its event's values, into an arena, and a call's values from its members.

extension WireWrite {
    static func value<Value>(_ value: Value, _ arena: WireArena) -> Value { value }

    static func enumeration<Value: RawRepresentable>(_ value: Value, _ arena: WireArena) -> Value.RawValue {
        value.rawValue
    }

    static func text(_ text: String, _ arena: WireArena) -> (UnsafePointer<CChar>?, Int) {
        (arena.copy(Array(text.utf8)), text.utf8.count)
    }

    static func data(_ data: Data, _ arena: WireArena) -> (UnsafeRawPointer?, Int) {
        (UnsafeRawPointer(arena.copy(data)), data.count)
    }

    static func optionalID(_ id: UInt64?, _ arena: WireArena) -> UInt64 { id ?? 0 }

    static func duration(_ duration: Duration, _ arena: WireArena) -> UInt64 { WireDuration.nanoseconds(duration) }

    static func optionalDuration(_ duration: Duration?, _ arena: WireArena) -> UInt64 {
        duration.map(WireDuration.nanoseconds) ?? 0
    }

    static func loadingProgress(_ progress: LoadingProgress, _ arena: WireArena) -> Double { progress.abiValue }

    static func audioConfiguration(_ configuration: AudioConfiguration, _ arena: WireArena) -> (Int32, Int32, UInt32) {
        (configuration.category.rawValue, configuration.mode.rawValue, configuration.options.rawValue)
    }

    static func outputOverride(_ outputOverride: AudioOutputOverride, _ arena: WireArena) -> Int32 {
        outputOverride == .speaker ? 1 : 0
    }

    static func threadID(_ id: Int32, _ arena: WireArena) -> UInt64 { UInt64(id) }

    static func actionOutcome(_ outcome: ActionOutcome, _ arena: WireArena) -> (
        Bool, ahr_value, UnsafePointer<CChar>?, Int
    ) {
        switch outcome {
        case .returned(let value):
            guard let value else { return (true, ahr_value(), nil, 0) }
            let copied = ActionABI.withValues([value]) { values in
                var copied = values[0]
                if let bytes = copied.bytes {
                    copied.bytes = UnsafeRawPointer(arena.copy(Data(bytes: bytes, count: copied.length)))
                }
                return copied
            }
            return (true, copied, nil, 0)
        case .broke(let why):
            let (problem, length) = text(why, arena)
            return (false, ahr_value(), problem, length)
        }
    }
}

extension WireRead {
    static func sceneCallback(_ callback: ahr_scene_callback) throws -> SceneCallback {
        guard let value = SceneCallback.allCases.first(where: { WireWrite.sceneCallback($0) == callback }) else {
            throw WireFieldError.invalid
        }
        return value
    }

    static func connection(
        _ scene: UInt64, _ sessionID: UnsafePointer<CChar>?, _ sessionIDLength: Int, _ role: Int32,
        _ initialState: Int32, _ hasRestoration: Bool, _ restoration: UnsafeRawPointer?, _ restorationLength: Int
    ) throws -> SceneConnection {
        SceneConnection(
            scene: scene, sessionID: try text(sessionID, sessionIDLength), role: try enumeration(role),
            initialState: try enumeration(initialState),
            restorationData: hasRestoration ? Data(bytes: restoration!, count: restorationLength) : nil)
    }

    static func backgroundTime(_ nanoseconds: Int64) throws -> Duration? {
        nanoseconds == Int64(AHR_BACKGROUND_TIME_UNLIMITED) ? nil : WireDuration.duration(UInt64(nanoseconds))
    }

    static func sceneSize(_ width: UInt32, _ height: UInt32, _ sizeClass: Int32) throws -> SceneSize {
        SceneSize(width: width, height: height, sizeClass: try enumeration(sizeClass))
    }

    static func payload(_ bytes: UnsafeRawPointer?, _ length: Int) throws -> Data { try data(bytes, length) }

    static func count(_ count: UInt32) throws -> Int { Int(count) }

    static func rawValue<Value: RawRepresentable>(_ raw: Value.RawValue) throws -> Value {
        guard let value = Value(rawValue: raw) else { throw WireFieldError.invalid }
        return value
    }

    static func negated(_ flag: Bool) throws -> Bool { !flag }

    static func audioFormat(_ sampleRate: UInt32, _ periodFrames: UInt32, _ channelCount: UInt32) throws
        -> AudioFormat
    {
        AudioFormat(sampleRate: Int(sampleRate), periodFrames: Int(periodFrames), channelCount: Int(channelCount))
    }

    static func audioRoute(_ output: Int32, _ input: Int32) throws -> AudioRoute {
        guard let output = AudioOutput.allCases.first(where: { AudioABI.value(of: $0) == output }),
            let input = AudioInput.allCases.first(where: { AudioABI.value(of: $0) == input })
        else { throw WireFieldError.invalid }
        return AudioRoute(output: output, input: input)
    }

    static func refusal(_ result: Int32) throws -> AudioActivationRefusal? {
        AudioActivationRefusal.allCases.first { AudioABI.activationResult($0) == result }
    }

    static func interruptionReason(_ value: Int32) throws -> AudioInterruptionReason {
        guard let reason = AudioInterruptionReason.allCases.first(where: { AudioABI.value(of: $0) == value }) else {
            throw WireFieldError.invalid
        }
        return reason
    }

    static func routeChangeReason(_ value: Int32) throws -> AudioRouteChangeReason {
        guard let reason = AudioRouteChangeReason.allCases.first(where: { AudioABI.value(of: $0) == value }) else {
            throw WireFieldError.invalid
        }
        return reason
    }

    /// The descriptors alone do not make a stream.
    static func audioStream(_ memfd: Int32, _ wake: Int32) throws -> AudioStreamHandle {
        throw WireFieldError.notOnTheWire
    }

    /// Not on the wire: the host's declaration of the action.
    static func guestAction() throws -> GuestAction { throw WireFieldError.notOnTheWire }

    static func actionIndex(_ index: UInt32) throws -> Int { Int(index) }

    static func actionArguments(_ values: UnsafePointer<ahr_value>?, _ count: Int) throws -> [ActionValue] {
        throw WireFieldError.notOnTheWire
    }
}
