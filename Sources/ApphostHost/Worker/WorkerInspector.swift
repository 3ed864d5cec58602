/// `apphost inspect` with process isolation: the library is loaded in a throwaway worker, never
/// started, so that a constructor that crashes, exits or never returns costs the CLI a one-line
/// error instead of its life (CONTRACT X1, X2).
public enum WorkerInspector {
    /// The validated descriptor of the guest at `path`; the error's description is the one line
    /// to print. Returns or throws within about `timeout`.
    public static func inspect(path: String, workerPath: String, timeout: Duration = .seconds(10))
        throws(LoadError) -> GuestDescriptor
    {
        try ElfInspector.check(path: path)
        let worker = try WorkerHandshake.spawn(executable: workerPath, path: path, timeout: timeout)
        try worker.awaitHello()
        let descriptor = try worker.load(
            canonicalPath: GuestLibrary.canonicalize(path), guestsDirectory: "", hostName: "apphost inspect",
            hostVersion: "")
        worker.stop()
        return descriptor
    }
}
