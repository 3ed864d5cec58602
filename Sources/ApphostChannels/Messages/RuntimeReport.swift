import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import CApphost
import Foundation

/// The C guest runtime's `ahr_report` as a `GuestEvent`: the one place where what a guest asks of
/// the host becomes the core's, whether the report came from the runtime in the host's process or
/// was decoded from a worker's frame (wire_messages.h), whose numbers are the reports' kinds.
enum RuntimeReport {
    /// The event, with its texts' invalid UTF-8 repaired and its bytes copied; nil for a kind or an
    /// enum value the host does not know, which the runtime never reports and the wire's decoder
    /// refuses.
    static func event(of report: ahr_report) -> GuestEvent? {
        switch report.kind {
        case AHR_REPORT_LOG:
            guard let level = GuestLogLevel(rawValue: report.level) else { return nil }
            return .log(level, text(report.text, report.text_length))
        case AHR_REPORT_SAVE_STATE:
            return .saveSceneState(
                report.scene, bytes(report.bytes, report.bytes_length), confirmation: report.id == 0 ? nil : report.id)
        case AHR_REPORT_TASK_BEGAN:
            return .taskBegan(report.id, name: text(report.text, report.text_length))
        case AHR_REPORT_TASK_ENDED:
            return .taskEnded(report.id)
        case AHR_REPORT_TIMER_SCHEDULED:
            return .timerScheduled(
                report.id, delay: WireDuration.duration(report.delay_ns),
                interval: report.interval_ns == 0 ? nil : WireDuration.duration(report.interval_ns))
        case AHR_REPORT_TIMER_CANCELLED:
            return .timerCancelled(report.id)
        case AHR_REPORT_WORK_SUBMITTED:
            return .workSubmitted(report.id)
        case AHR_REPORT_SCENE_REQUESTED:
            guard let role = SceneRole(rawValue: report.role), let style = PresentationStyle(rawValue: report.style)
            else { return nil }
            return .sceneRequested(
                activation: report.activation, from: report.scene, role: role, style: style,
                state: bytes(report.bytes, report.bytes_length))
        case AHR_REPORT_SESSION_ACTIVATION_REQUESTED:
            guard let style = PresentationStyle(rawValue: report.style) else { return nil }
            return .sessionActivationRequested(sessionID: text(report.text, report.text_length), style: style)
        case AHR_REPORT_LOADING_PROGRESS:
            guard let progress = LoadingProgress(abiValue: report.progress) else { return nil }
            return .loadingProgress(report.scene, progress)
        case AHR_REPORT_MODAL_PRESENTED:
            guard let style = ModalStyle(rawValue: report.style) else { return nil }
            return .modalPresented(report.scene, report.id, style: style, title: text(report.text, report.text_length))
        case AHR_REPORT_MODAL_DISMISSED:
            return .modalDismissed(report.scene, report.id)
        case AHR_REPORT_NOTIFICATION_POSTED:
            return .notificationPosted(
                title: text(report.text, report.text_length), body: text(report.body, report.body_length))
        case AHR_REPORT_SESSION_CLOSE_REQUESTED:
            return .sessionCloseRequested(sessionID: text(report.text, report.text_length))
        case AHR_REPORT_SCENE_TITLE_CHANGED:
            return .sceneTitleChanged(report.scene, title: text(report.text, report.text_length))
        case AHR_REPORT_AUDIO_CONFIGURED:
            guard let category = AudioCategory(rawValue: report.category), let mode = AudioMode(rawValue: report.mode),
                let configuration = try? AudioConfiguration(
                    category: category, mode: mode, options: AudioOptions(rawValue: report.options))
            else { return nil }
            return .audioConfigured(configuration)
        case AHR_REPORT_AUDIO_ACTIVATION_REQUESTED:
            return .audioActivationRequested(report.id)
        case AHR_REPORT_AUDIO_DEACTIVATED:
            return .audioDeactivated(notifyOthers: report.flag)
        case AHR_REPORT_AUDIO_RENDERING:
            return .audioRendering(report.flag)
        case AHR_REPORT_AUDIO_GAIN:
            return .audioGainChanged(report.gain)
        case AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN:
            guard let outputOverride = AudioABI.outputOverride(report.output_override) else { return nil }
            return .audioOutputOverridden(outputOverride)
        case AHR_REPORT_ACTION_RESULT:
            guard report.flag else {
                return .actionFinished(.broke(text(report.text, report.text_length)))
            }
            let (value, valid) = ActionABI.value(of: report.value)
            return .actionFinished(valid ? .returned(value) : .broke("returned a value the host cannot read"))
        case AHR_REPORT_AUDIO_THREAD:
            return .audioThread(id: Int32(clamping: report.id), realtime: report.flag)
        default:
            return nil
        }
    }

    /// A guest's text as the runtime passes it on (cut at a character boundary, not checked).
    private static func text(_ utf8: UnsafePointer<CChar>?, _ length: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: utf8, count: length), as: UTF8.self)
    }

    private static func bytes(_ bytes: UnsafeRawPointer?, _ length: Int) -> Data {
        bytes.map { Data(bytes: $0, count: length) } ?? Data()
    }
}
