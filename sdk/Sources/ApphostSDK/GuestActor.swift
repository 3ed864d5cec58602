/// The guest's main queue as a global actor: what `@MainActor` is to a UIKit app.
///
/// ``GuestApp`` and ``SceneDelegate`` are isolated to it, and so are the classes that conform
/// to them, and the SDK members that the C ABI lets a guest call only on its main queue (such
/// as ``Apphost/appState``). Isolate your own types to it when they share state with your
/// delegates: the compiler then checks every access, and code on other threads reaches them
/// with `await`.
///
/// ```swift
/// @GuestActor final class Store {
///     var notes: [String: String] = [:]
/// }
///
/// // From any thread, or a Task: the work runs on the main queue, one job at a time with the
/// // host's callbacks.
/// Task { @GuestActor in store.notes["groceries"] = "milk" }
/// ```
///
/// Its executor runs jobs on the guest's main queue by asking the host to call in
/// (`dispatch_async` of "apphost.background/1"), in order, a batch per call. So, like the
/// callbacks, nothing isolated to it runs while the guest is suspended (CONTRACT B7), and a job
/// enqueued before ``GuestApp/didFinishLaunching(host:)`` waits until it is called. After the
/// guest terminates (deinit), jobs still waiting never run: end your work in
/// ``GuestApp/willTerminate()``.
@globalActor
public actor GuestActor {
    public static let shared = GuestActor()

    private init() {}

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        MainQueueExecutor.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` on the main queue, where the caller, which is not isolated to
    /// ``GuestActor`` as the compiler sees it, knows it is: in code the host calls on the main
    /// queue, such as a C callback of your own. Stops the guest with a message when called
    /// anywhere else. What `MainActor.assumeIsolated` is for the main actor.
    public static func assumeIsolated<T>(
        _ operation: @GuestActor () throws -> T, file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        shared.preconditionIsolated("not on the guest's main queue", file: file, line: line)
        // The check above is what makes the cast sound: the caller is on the actor's executor.
        return try withoutActuallyEscaping(operation) { isolated in
            try unsafeBitCast(isolated, to: (() throws -> T).self)()
        }
    }
}
