import XCTest

@testable import ApphostFreezing

/// Finding our own cgroup from /proc/self/mountinfo and /proc/self/cgroup, on the layouts the
/// host meets: hybrid (v2 at /sys/fs/cgroup/unified), pure v2, containers, cgroup namespaces.
final class FreezerLocationTests: XCTestCase {
    private let hybridMounts = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
        40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """

    func testHybridLayoutWithRootCgroups() {
        let cgroups = "9:name=systemd:/\n6:freezer:/\n4:memory:/process_api/4d18\n0::/\n"
        XCTAssertEqual(
            try CgroupLocation.v2Directory(mountinfo: hybridMounts, cgroups: cgroups).get(), "/sys/fs/cgroup/unified")
        XCTAssertEqual(
            try CgroupLocation.v1FreezerDirectory(mountinfo: hybridMounts, cgroups: cgroups).get(),
            "/sys/fs/cgroup/freezer")
    }

    func testPureV2WithANestedCgroupAndNoV1Freezer() {
        let mounts = "25 21 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        let cgroups = "0::/user.slice/user-0.slice/session-3.scope\n"
        XCTAssertEqual(
            try CgroupLocation.v2Directory(mountinfo: mounts, cgroups: cgroups).get(),
            "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope")
        XCTAssertThrowsError(try CgroupLocation.v1FreezerDirectory(mountinfo: mounts, cgroups: cgroups).get()) {
            XCTAssertTrue("\($0)".contains("no cgroup v1 hierarchy with the freezer"), "\($0)")
        }
    }

    // A container that sees only its own part of the hierarchy: the mount's root is its cgroup.
    func testContainerMountWhoseRootIsOurCgroup() {
        let mounts = "700 690 0:34 /docker/abc /sys/fs/cgroup/freezer ro,nosuid - cgroup cgroup rw,freezer\n"
        XCTAssertEqual(
            try CgroupLocation.v1FreezerDirectory(mountinfo: mounts, cgroups: "6:freezer:/docker/abc/x\n").get(),
            "/sys/fs/cgroup/freezer/x")
        XCTAssertEqual(
            try CgroupLocation.v1FreezerDirectory(mountinfo: mounts, cgroups: "6:freezer:/docker/abc\n").get(),
            "/sys/fs/cgroup/freezer")
        XCTAssertThrowsError(
            try CgroupLocation.v1FreezerDirectory(mountinfo: mounts, cgroups: "6:freezer:/docker/abcd\n").get())
    }

    // With a cgroup namespace, a cgroup outside it shows as "/..": unreachable, not a path.
    func testCgroupOutsideOurNamespaceIsRefused() {
        let mounts = "25 21 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
        XCTAssertThrowsError(try CgroupLocation.v2Directory(mountinfo: mounts, cgroups: "0::/../other\n").get())
    }

    func testNoCgroup2MountIsSaid() {
        XCTAssertThrowsError(try CgroupLocation.v2Directory(mountinfo: "", cgroups: "0::/\n").get()) {
            XCTAssertEqual("\($0)", "no cgroup2 file system is mounted")
        }
    }

    func testMountPointsWithEscapedSpaces() {
        let mounts = #"41 31 0:38 / /mnt/my\040cgroups rw - cgroup2 cgroup2 rw"#
        XCTAssertEqual(
            try CgroupLocation.v2Directory(mountinfo: mounts, cgroups: "0::/a\n").get(), "/mnt/my cgroups/a")
    }

    // The command name in /proc/<pid>/stat may hold spaces and parentheses.
    func testProcessStatWithAnAwkwardCommandName() throws {
        let line = "1234 (a) b (c) S 1 1234 1234 0 -1 4194560 100 0 0 0 17 5 0 0 20 0 3 0 100 0 0\n"
        let stat = try XCTUnwrap(ProcessStat.parse(line))
        XCTAssertEqual(stat.state, "S")
        XCTAssertEqual(stat.userTicks, 17)
        XCTAssertEqual(stat.systemTicks, 5)
    }
}
