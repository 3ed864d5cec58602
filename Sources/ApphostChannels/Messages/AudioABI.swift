import ApphostModel
import CApphost

/// The audio values of the model as audio.h numbers them, and back: the one table of both, for
/// the calls and reports of `RuntimeCall` and `RuntimeReport`. (Categories and modes carry the
/// ABI's numbers as their raw values.)
enum AudioABI {
    static func values(of route: AudioRoute) -> (output: Int32, input: Int32) {
        (value(of: route.output), value(of: route.input))
    }

    static func value(of output: AudioOutput) -> Int32 {
        switch output {
        case .none: Int32(APPHOST_AUDIO_OUTPUT_NONE.rawValue)
        case .speaker: Int32(APPHOST_AUDIO_OUTPUT_SPEAKER.rawValue)
        case .headphones: Int32(APPHOST_AUDIO_OUTPUT_HEADPHONES.rawValue)
        case .bluetooth: Int32(APPHOST_AUDIO_OUTPUT_BLUETOOTH.rawValue)
        case .lineOut: Int32(APPHOST_AUDIO_OUTPUT_LINE_OUT.rawValue)
        }
    }

    static func value(of input: AudioInput) -> Int32 {
        switch input {
        case .none: Int32(APPHOST_AUDIO_INPUT_NONE.rawValue)
        case .builtInMic: Int32(APPHOST_AUDIO_INPUT_BUILT_IN_MIC.rawValue)
        case .headsetMic: Int32(APPHOST_AUDIO_INPUT_HEADSET_MIC.rawValue)
        case .bluetooth: Int32(APPHOST_AUDIO_INPUT_BLUETOOTH.rawValue)
        case .lineIn: Int32(APPHOST_AUDIO_INPUT_LINE_IN.rawValue)
        }
    }

    static func value(of reason: AudioInterruptionReason) -> Int32 {
        switch reason {
        case .otherSession: Int32(APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION.rawValue)
        case .call: Int32(APPHOST_AUDIO_INTERRUPTION_CALL.rawValue)
        case .appWentToBackground: Int32(APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND.rawValue)
        case .routeGone: Int32(APPHOST_AUDIO_INTERRUPTION_ROUTE_GONE.rawValue)
        case .suspended: Int32(APPHOST_AUDIO_INTERRUPTION_SUSPENDED.rawValue)
        }
    }

    static func value(of reason: AudioRouteChangeReason) -> Int32 {
        switch reason {
        case .newDeviceAvailable: Int32(APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE.rawValue)
        case .oldDeviceUnavailable: Int32(APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE.rawValue)
        case .categoryChange: Int32(APPHOST_AUDIO_ROUTE_CATEGORY_CHANGE.rawValue)
        case .override: Int32(APPHOST_AUDIO_ROUTE_OVERRIDE.rawValue)
        }
    }

    static func activationResult(_ refusal: AudioActivationRefusal?) -> Int32 {
        switch refusal {
        case nil: Int32(APPHOST_AUDIO_ACTIVATED.rawValue)
        case .callInProgress: Int32(APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS.rawValue)
        case .nonMixingInBackground: Int32(APPHOST_AUDIO_REFUSED_NON_MIXING_IN_BACKGROUND.rawValue)
        case .notRunning: Int32(APPHOST_AUDIO_REFUSED_NOT_RUNNING.rawValue)
        }
    }

    static func outputOverride(_ value: Int32) -> AudioOutputOverride? {
        switch value {
        case Int32(APPHOST_AUDIO_OVERRIDE_NONE.rawValue): AudioOutputOverride.none
        case Int32(APPHOST_AUDIO_OVERRIDE_SPEAKER.rawValue): .speaker
        default: nil
        }
    }
}
