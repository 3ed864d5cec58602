// Swift Upload: a guest that finishes a user-initiated upload in background, on the
// "apphost.background/1" extension through ApphostSDK's `Background`.
//
// When its scene enters background it begins a background task "upload" and sends the rest of
// the upload in chunks, one per host timer tick; when the last chunk is sent it ends the task.
// If the budget runs short first, the task's expiration handler stops the upload and ends the
// task, so the guest never runs over (CONTRACT B3, B4). This is the pattern to copy: begin a task
// for work that must finish, end it on every path.
//
// The "upload" is simulated: APPHOST_UPLOAD_CHUNKS chunks (5 by default) sent
// APPHOST_UPLOAD_CHUNK_MS milliseconds apart (50 by default). Tests shorten or lengthen it.
//
// Log lines (INFO unless noted), which the end-to-end tests match:
//   callback did_finish_launching
//   callback will_enter_foreground scene=<handle>
//   callback did_enter_background scene=<handle>
//   callback will_terminate
//   upload started task=<id> chunks=<n> chunk_ms=<ms>
//   upload chunk <i>/<n>                     one per timer tick, i from 1 to n
//   upload finished                          after chunk n/n
//   upload expired                           WARNING, from the expiration handler
//   upload abandoned at termination          will_terminate during an upload
//   upload task ended                        after each of the three above: end_task returned OK
//   upload task not ended: <error>           WARNING, end_task failed
//   upload already running                   did_enter_background during an upload
//   upload not started: no background time   WARNING, begin_task refused (B1)
//   upload not started: background extension not offered   WARNING
//   background extension not offered         WARNING, at launch
//   ignoring <VARIABLE>: expected <lo>...<hi>               WARNING, at launch
//   upload timer not scheduled: <error>      ERROR, then "upload failed" and the task ended
//
// The host calls everything here, callbacks, timer work and the expiration handler, on the guest's
// main queue one call at a time (the app is isolated to GuestActor, that queue, and so are the
// closures given to Background), so the plain stored properties below need no locks.

import ApphostSDK

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
final class UploadApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.upload", name: "Swift Upload", version: "1.0.0", vendor: "apphost",
        summary: "Finishes an upload in background within its budget.",
        capabilities: [.backgroundTasks])

    private var host: Apphost?
    /// Nil when the host does not offer background work.
    private var background: Background?
    /// The simulated upload's size, from the environment at launch.
    private var chunks = 5
    private var chunkMilliseconds = 50

    /// The upload under way, if any.
    private var upload: Upload?

    private struct Upload {
        var task: BackgroundTask
        var timer: BackgroundTimer?
        var sent = 0
    }

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        host.log(level: .info, "callback did_finish_launching")
        chunks = setting("APPHOST_UPLOAD_CHUNKS", default: chunks, range: 1...10_000)
        chunkMilliseconds = setting("APPHOST_UPLOAD_CHUNK_MS", default: chunkMilliseconds, range: 1...60_000)
        // Get the extension once and keep it. A guest that cannot work without it could throw
        // here to fail its launch; this one just never uploads in background.
        background = host.background
        if background == nil {
            host.log(level: .warning, "background extension not offered")
        }
    }

    func willTerminate() {
        host?.log(level: .info, "callback will_terminate")
        // Being terminated: stop, and end the task so that no id stays open.
        if upload != nil { finishUpload(log: "upload abandoned at termination") }
    }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate {
        UploadScene(app: self)
    }

    // MARK: - The upload

    /// Called when the scene enters background: the user expects the upload to go on.
    func sceneEnteredBackground() {
        guard let host else { return }
        guard upload == nil else {
            host.log(level: .info, "upload already running")
            return
        }
        guard let background else {
            host.log(level: .warning, "upload not started: background extension not offered")
            return
        }
        // Begin the task first, in the callback, before the host can suspend the guest for
        // having none (B6). The handler runs on the main queue if time runs short (B3).
        guard
            let task = background.beginTask(
                "upload",
                expirationHandler: { [weak self] task in self?.uploadExpired(task) })
        else {
            // B1: the guest is being suspended or its budget is spent. Do not start the work.
            host.log(level: .warning, "upload not started: no background time")
            return
        }
        upload = Upload(task: task)
        host.log(level: .info, "upload started task=\(task.id) chunks=\(chunks) chunk_ms=\(chunkMilliseconds)")
        do {
            let interval = Duration.milliseconds(chunkMilliseconds)
            upload?.timer = try background.schedule(after: interval, repeating: interval) { [weak self] in
                self?.sendChunk()
            }
        } catch {
            host.log(level: .error, "upload timer not scheduled: \(error)")
            finishUpload(log: "upload failed")
        }
    }

    /// Timer work, on the main queue: one chunk per tick.
    private func sendChunk() {
        guard let host, var current = upload else { return }
        current.sent += 1
        upload = current
        host.log(level: .info, "upload chunk \(current.sent)/\(chunks)")
        if current.sent >= chunks {
            finishUpload(log: "upload finished")
        }
    }

    /// The expiration handler, on the main queue, a grace period before the budget ends (B3):
    /// stop at once and end the task, or the guest runs over (B4).
    private func uploadExpired(_ task: BackgroundTask) {
        guard upload?.task === task else {
            // Not the upload under way. It cannot happen (an ended task never expires), but a
            // task the guest holds must be ended on every path.
            try? task.end()
            return
        }
        finishUpload(log: "upload expired", level: .warning)
    }

    /// Stops the timer and ends the task: the one way out of an upload, whether it finished,
    /// expired or was abandoned, so that the task is ended exactly once.
    private func finishUpload(log message: String, level: LogLevel = .info) {
        guard let host, let current = upload else { return }
        upload = nil
        host.log(level: level, message)
        current.timer?.cancel()
        do {
            try current.task.end()
            host.log(level: .info, "upload task ended")
        } catch {
            host.log(level: .warning, "upload task not ended: \(error)")
        }
    }

    /// A positive integer from the environment, or `default` (with a warning) when it is unset
    /// or not a number in `range`.
    private func setting(_ name: String, default value: Int, range: ClosedRange<Int>) -> Int {
        guard let raw = getenv(name) else { return value }
        guard let parsed = Int(String(cString: raw)), range.contains(parsed) else {
            host?.log(level: .warning, "ignoring \(name): expected \(range.lowerBound)...\(range.upperBound)")
            return value
        }
        return parsed
    }
}

final class UploadScene: SceneDelegate {
    private weak var app: UploadApp?

    init(app: UploadApp) {
        self.app = app
    }

    func sceneWillEnterForeground(_ scene: Scene) {
        // Back in the foreground time is unlimited: a running upload simply goes on.
        scene.host.log(level: .info, "callback will_enter_foreground scene=\(scene.handle)")
    }

    func sceneDidEnterBackground(_ scene: Scene) {
        scene.host.log(level: .info, "callback did_enter_background scene=\(scene.handle)")
        app?.sceneEnteredBackground()
    }
}
