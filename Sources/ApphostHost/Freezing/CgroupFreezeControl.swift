/// How one cgroup hierarchy's freezer freezes, thaws and confirms a cgroup.
protocol CgroupFreezeControl: Sendable {
    var mechanism: String { get }
    /// Throws why a cgroup under `base` cannot be frozen at all.
    func checkSupported(_ cgroup: String, base: String) throws(FreezeError)
    /// Freezes or thaws `cgroup` and waits until the kernel says it is done.
    func set(_ cgroup: String, frozen: Bool, timeout: Duration) throws(FreezeError)
    /// Thaws a cgroup without waiting, where nobody waits for the outcome.
    func letRun(_ cgroup: String)
}

/// cgroup v2: `cgroup.freeze`, confirmed by the "frozen" line of `cgroup.events`. A process frozen
/// this way still dies of SIGKILL.
struct CgroupV2FreezeControl: CgroupFreezeControl {
    let mechanism = "cgroup v2"

    func checkSupported(_ cgroup: String, base: String) throws(FreezeError) {
        // Kernels before 5.2 have cgroup v2 but not its freezer.
        guard KernelFile.exists("\(cgroup)/cgroup.freeze") else {
            throw FreezeError("\(base) has no cgroup.freeze (the kernel predates the cgroup v2 freezer)")
        }
    }

    func set(_ cgroup: String, frozen: Bool, timeout: Duration) throws(FreezeError) {
        try KernelFile.write(frozen ? "1" : "0", to: "\(cgroup)/cgroup.freeze")
        let expected = frozen ? "frozen 1" : "frozen 0"
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            try KernelFile.read("\(cgroup)/cgroup.events").split(separator: "\n").contains { $0 == expected }
        }
        guard confirmed else {
            throw FreezeError("\(cgroup) did not report \"\(expected)\" within \(timeout.secondsText)")
        }
    }

    func letRun(_ cgroup: String) { try? KernelFile.write("0", to: "\(cgroup)/cgroup.freeze") }
}

/// cgroup v1: `freezer.state`, written FROZEN and read until the kernel has moved from FREEZING to
/// FROZEN (each read makes it check). Unlike v2, a process frozen here does not die of SIGKILL
/// until it is thawed: whoever kills a frozen worker must thaw it too.
struct CgroupV1FreezeControl: CgroupFreezeControl {
    let mechanism = "cgroup v1"

    func checkSupported(_ cgroup: String, base: String) throws(FreezeError) {}

    func set(_ cgroup: String, frozen: Bool, timeout: Duration) throws(FreezeError) {
        let file = "\(cgroup)/freezer.state"
        let state = frozen ? "FROZEN" : "THAWED"
        try KernelFile.write(state, to: file)
        var last = ""
        let confirmed = try Polling.until(timeout: timeout) { () throws(FreezeError) in
            last = try KernelFile.read(file).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            return last == state
        }
        guard confirmed else {
            throw FreezeError("\(file) still reads \(last) after \(timeout.secondsText), not \(state)")
        }
    }

    func letRun(_ cgroup: String) { try? KernelFile.write("THAWED", to: "\(cgroup)/freezer.state") }
}
