// A Swift guest whose actions cover every type code of actions.h, for the tests of the SDK's
// actions (Tests/ApphostHostTests/SDKActionsTests.swift): the SDK derives each signature from the
// closure's types, and its libffi closures convert each C argument and result.
//
// echo.<code>  returns its argument as it got it, for each code (b y n q i u x t d s ay)
// mix          (s, ay, i, b, d) -> s: its arguments, in order, as one line, which shows that an
//              argument after ay (two C parameters) reads right
// touch        no arguments and no result: counts its calls; foreground only
// touches      () -> t: how many times touch ran
// bytes        (u) -> ay: that many bytes 0, 1, 2 ... (mod 256); 0 gives none
// text         (u) -> s: that many 'x', to see a result's buffer replaced by the next call's

import ApphostSDK

@main
final class ActionsApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.fixtures.swift-actions", name: "Swift Actions Fixture", version: "1.0.0",
        summary: "Actions of every type code, for the SDK's tests.")

    static let actions = [
        action("echo.b", description: "Returns its bool.") { (_, value: Bool) in value },
        action("echo.y", description: "Returns its byte.") { (_, value: UInt8) in value },
        action("echo.n", description: "Returns its int16.") { (_, value: Int16) in value },
        action("echo.q", description: "Returns its uint16.") { (_, value: UInt16) in value },
        action("echo.i", description: "Returns its int32.") { (_, value: Int32) in value },
        action("echo.u", description: "Returns its uint32.") { (_, value: UInt32) in value },
        action("echo.x", description: "Returns its int64.") { (_, value: Int64) in value },
        action("echo.t", description: "Returns its uint64.") { (_, value: UInt64) in value },
        action("echo.d", description: "Returns its double.") { (_, value: Double) in value },
        action("echo.s", description: "Returns its string.") { (_, value: String) in value },
        action("echo.ay", description: "Returns its bytes.") { (_, value: [UInt8]) in value },
        action("mix", description: "Its arguments as one line.") {
            (_, text: String, bytes: [UInt8], number: Int32, flag: Bool, real: Double) in
            "\(text) \(bytes) \(number) \(flag) \(real)"
        },
        action("touch", description: "Counts its calls.", foreground: true) { app in
            app.touches += 1
        },
        action("touches", description: "How many times touch ran.") { app in app.touches },
        action("bytes", description: "That many bytes counting up from 0.") { (_, count: UInt32) in
            (0..<Int(count)).map { UInt8(truncatingIfNeeded: $0) }
        },
        action("text", description: "That many x.") { (_, count: UInt32) in
            String(repeating: "x", count: Int(count))
        },
    ]

    var touches: UInt64 = 0

    required init() {}
}
