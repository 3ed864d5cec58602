import ApphostGuestRuntime
import ApphostVocabulary

/// The C guest runtime's `ahr_report` as a `GuestEvent`: the one place where what a guest asks of
/// the host becomes the core's, whether the report came from the runtime in the host's process or
/// was decoded from a worker's frame (wire_messages.h), whose numbers are the reports' kinds. Each
/// kind's mapping is generated from apphost_messages.h's table (`tableEvent`, by the build plugin
/// WireMessageGenerator), through the converters of `WireRead`.
enum RuntimeReport {
    /// The event, with its texts' invalid UTF-8 repaired and its bytes copied; nil for a kind or an
    /// enum value the host does not know, which the runtime never reports and the wire's decoder
    /// refuses.
    static func event(of report: ahr_report) -> GuestEvent? {
        try? tableEvent(of: report)
    }
}
