import Foundation

/// `apphost-benchmarks [n] <name>`: when the command line names `name`, runs `body` alone with
/// `n` (`standard` unless given) after the run's header, which says what `n` counts (`counting`),
/// then removes `scratch` and exits. Otherwise returns, and the full run goes on.
func runAlone(
    _ name: String, standard: Int, counting: String, scratch: URL, _ body: (Int) throws -> Void
) rethrows {
    guard CommandLine.arguments.dropFirst(2).first == name else { return }
    let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? standard
    print("apphost benchmarks: \(name), \(count) \(counting), \(ProcessInfo.processInfo.activeProcessorCount) cores")
    try body(count)
    try? FileManager.default.removeItem(at: scratch)
    exit(0)
}
