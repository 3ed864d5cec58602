import ApphostFreezing
import ApphostLoading
import ApphostModel
import ApphostVocabulary

/// `apphost inspect` with process isolation: the library is loaded in a throwaway worker, never
/// started, so that a constructor that crashes, exits or never returns costs the CLI a one-line
/// error instead of its life (CONTRACT X1, X2).
public enum WorkerInspector {
    /// The validated descriptor of the guest at `path`; the error's description is the one line
    /// to print. Returns or throws within about `timeout`. With a `freezer`, the worker is in a
    /// cgroup of its own (where the freezer uses cgroups), so that whatever the library's
    /// constructors start ends with it, even processes that left its process group (X2). With
    /// `users`, the worker loads the library under a throwaway user of its own, freed once the
    /// worker, and its cgroup, are gone. The worker loads it in the `sandbox` parts of a guest's
    /// container (CONTRACT X6): its constructors run as they would in a host.
    public static func inspect(
        path: String, workerPath: String, timeout: Duration = .seconds(10), freezer: (any ProcessFreezer)? = nil,
        users: WorkerUsers? = nil, sandbox: [SandboxPart] = []
    ) throws(LoadError) -> GuestDescriptor {
        try ElfInspector.check(path: path)
        let canonicalPath = GuestLibrary.canonicalize(path)
        var user: WorkerUser?
        do throws(WorkerUsers.Failure) {
            user = try users?.acquire(library: canonicalPath, guestsDirectory: nil)
        } catch {
            throw LoadError(path: path, cause: .workerFailed("cannot give the worker a user: \(error)"))
        }
        // Runs last: once the worker has been reaped and its cgroup killed.
        defer { if let user { users?.release(user) } }
        let worker = try WorkerHandshake.spawn(
            executable: workerPath, path: path, timeout: timeout, user: user,
            container: WorkerContainer(parts: sandbox))
        try worker.awaitHello()
        let pid = worker.process.pid
        if let freezer {
            do {
                try freezer.adopt(pid: pid)
            } catch {
                worker.abandon()
                throw LoadError(path: path, cause: .workerFailed("cannot take charge of worker \(pid): \(error)"))
            }
        }
        // Once the worker has been reaped, however the load went.
        defer { freezer?.release(pid: pid) }
        let descriptor = try worker.load(
            canonicalPath: canonicalPath, guestsDirectory: "", hostName: "apphost inspect",
            hostVersion: "")
        worker.stop()
        return descriptor
    }
}
