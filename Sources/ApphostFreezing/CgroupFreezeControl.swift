import ApphostVocabulary

/// How one cgroup hierarchy's freezer freezes, thaws and confirms a cgroup.
protocol CgroupFreezeControl: Sendable {
    var mechanism: String { get }
    /// The directory of our own cgroup in the hierarchy it freezes, from this process's
    /// `/proc/self/mountinfo` and `/proc/self/cgroup`.
    func ownCgroup(mountinfo: String, cgroups: String) -> Result<String, FreezeError>
    /// Throws why a cgroup under `base` cannot be frozen at all.
    func checkSupported(_ cgroup: String, base: String) throws(FreezeError)
    /// Opens the files that freeze and confirm `cgroup`, for as long as it is used.
    func open(_ cgroup: String) throws(FreezeError) -> CgroupFreezeFiles
    /// Freezes or thaws the cgroup and waits until the kernel says it is done. Returns whether a
    /// process is left in it, where the confirmation says (cgroup v2), else nil.
    func set(_ files: CgroupFreezeFiles, frozen: Bool, timeout: Duration) throws(FreezeError) -> Bool?
    /// Thaws a cgroup without waiting, where nobody waits for the outcome.
    func letRun(_ cgroup: String)
}

/// The open files of one cgroup that a freezer writes and reads.
struct CgroupFreezeFiles: Sendable {
    let cgroup: String
    /// Takes the new state.
    let control: KernelFileHandle
    /// Says when the kernel is done.
    let state: KernelFileHandle
}

/// cgroup v2: `cgroup.freeze`, confirmed by the "frozen" line of `cgroup.events`, whose
/// "populated" line says whether a process is left. A process frozen this way still dies of
/// SIGKILL.
struct CgroupV2FreezeControl: CgroupFreezeControl {
    let mechanism = "cgroup v2"

    func ownCgroup(mountinfo: String, cgroups: String) -> Result<String, FreezeError> {
        CgroupLocation.v2Directory(mountinfo: mountinfo, cgroups: cgroups)
    }

    func checkSupported(_ cgroup: String, base: String) throws(FreezeError) {
        // Kernels before 5.2 have cgroup v2 but not its freezer.
        guard KernelFile.exists("\(cgroup)/cgroup.freeze") else {
            throw FreezeError("\(base) has no cgroup.freeze (the kernel predates the cgroup v2 freezer)")
        }
    }

    func open(_ cgroup: String) throws(FreezeError) -> CgroupFreezeFiles {
        CgroupFreezeFiles(
            cgroup: cgroup, control: try KernelFileHandle("\(cgroup)/cgroup.freeze", .write),
            state: try KernelFileHandle("\(cgroup)/cgroup.events", .read))
    }

    func set(_ files: CgroupFreezeFiles, frozen: Bool, timeout: Duration) throws(FreezeError) -> Bool? {
        try files.control.write(frozen ? "1" : "0")
        let expected = frozen ? "frozen 1" : "frozen 0"
        var populated = true
        // Thawing is done by the time the write returns: the first read confirms it.
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            let lines = try files.state.read().split(separator: "\n")
            populated = !lines.contains("populated 0")
            return lines.contains { $0 == expected }
        }
        guard confirmed else {
            throw FreezeError("\(files.cgroup) did not report \"\(expected)\" within \(timeout.secondsText)")
        }
        return populated
    }

    func letRun(_ cgroup: String) { try? KernelFile.write("0", to: "\(cgroup)/cgroup.freeze") }
}

/// cgroup v1: `freezer.state`, written FROZEN and read until the kernel has moved from FREEZING to
/// FROZEN (each read makes it check). Unlike v2, a process frozen here does not die of SIGKILL
/// until it is thawed: whoever kills a frozen worker must thaw it too.
struct CgroupV1FreezeControl: CgroupFreezeControl {
    let mechanism = "cgroup v1"

    func ownCgroup(mountinfo: String, cgroups: String) -> Result<String, FreezeError> {
        CgroupLocation.v1FreezerDirectory(mountinfo: mountinfo, cgroups: cgroups)
    }

    func checkSupported(_ cgroup: String, base: String) throws(FreezeError) {}

    func open(_ cgroup: String) throws(FreezeError) -> CgroupFreezeFiles {
        let state = try KernelFileHandle("\(cgroup)/freezer.state", .readWrite)
        return CgroupFreezeFiles(cgroup: cgroup, control: state, state: state)
    }

    func set(_ files: CgroupFreezeFiles, frozen: Bool, timeout: Duration) throws(FreezeError) -> Bool? {
        let state = frozen ? "FROZEN" : "THAWED"
        try files.control.write(state)
        var last = ""
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            last = try files.state.read().split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            return last == state
        }
        guard confirmed else {
            throw FreezeError("\(files.state.path) still reads \(last) after \(timeout.secondsText), not \(state)")
        }
        return nil
    }

    func letRun(_ cgroup: String) { try? KernelFile.write("THAWED", to: "\(cgroup)/freezer.state") }
}
