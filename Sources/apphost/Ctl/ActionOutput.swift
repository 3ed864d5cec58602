import ApphostControl
import ApphostVocabulary

/// How `ctl` commands that change something report what the host did.
enum ActionOutput {
    static func print(_ result: ControlMessage, json: Bool) {
        Output.line(json ? ControlCoding.line(result) : TerminalText.escaped(result.message))
    }
}
