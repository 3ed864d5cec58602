/// Where this process's own cgroup is, as a directory: the cgroup v2 one, or the one in the v1
/// hierarchy that has the freezer. Found from /proc/self/mountinfo (which hierarchy is mounted
/// where, and which part of it) and /proc/self/cgroup (our path in each hierarchy), because the
/// mount point differs between machines (/sys/fs/cgroup on pure v2, /sys/fs/cgroup/unified on
/// hybrid ones) and our cgroup is not always the root.
package enum CgroupLocation {
    /// One line of /proc/self/mountinfo, the fields that matter here.
    struct Mount: Equatable {
        /// The part of the hierarchy mounted here ("/" unless a bind mount or container shows less).
        var root: String
        var mountPoint: String
        var fileSystem: String
        /// The super-block options: for cgroup v1 they name the controllers ("rw,freezer").
        var superOptions: [String]
    }

    /// One line of /proc/self/cgroup: `hierarchy-id:controllers:path`; v2 has id 0 and no controllers.
    struct Membership: Equatable {
        var hierarchyID: Int
        var controllers: [String]
        var path: String
    }

    /// Our cgroup v2 directory, or why there is none.
    package static func v2Directory(
        mountinfo: String, cgroups: String
    ) -> Result<String, FreezeError> {
        let mounts = parseMountinfo(mountinfo).filter { $0.fileSystem == "cgroup2" }
        guard !mounts.isEmpty else { return .failure(FreezeError("no cgroup2 file system is mounted")) }
        guard let membership = parseCgroups(cgroups).first(where: { $0.hierarchyID == 0 && $0.controllers.isEmpty })
        else {
            return .failure(FreezeError("/proc/self/cgroup names no cgroup v2 path"))
        }
        return directory(of: membership.path, in: mounts, hierarchy: "cgroup2")
    }

    /// Our directory in the v1 hierarchy that has the freezer controller, or why there is none.
    static func v1FreezerDirectory(
        mountinfo: String, cgroups: String
    ) -> Result<String, FreezeError> {
        v1Directory(controller: "freezer", mountinfo: mountinfo, cgroups: cgroups)
    }

    /// Our directory in the v1 hierarchy that has `controller` ("freezer", "memory", "pids"),
    /// or why there is none.
    package static func v1Directory(
        controller: String, mountinfo: String, cgroups: String
    ) -> Result<String, FreezeError> {
        let mounts = parseMountinfo(mountinfo).filter {
            $0.fileSystem == "cgroup" && $0.superOptions.contains(controller)
        }
        guard !mounts.isEmpty else {
            return .failure(FreezeError("no cgroup v1 hierarchy with the \(controller) controller is mounted"))
        }
        guard let membership = parseCgroups(cgroups).first(where: { $0.controllers.contains(controller) }) else {
            return .failure(FreezeError("/proc/self/cgroup names no \(controller) cgroup"))
        }
        return directory(of: membership.path, in: mounts, hierarchy: "the v1 \(controller) hierarchy")
    }

    /// The first mount that shows `path`: the mount point plus what of `path` lies below the
    /// mount's root.
    static func directory(
        of path: String, in mounts: [Mount], hierarchy: String
    ) -> Result<String, FreezeError> {
        // A path outside our cgroup namespace shows as "/.." and cannot be reached.
        guard path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
            return .failure(FreezeError("our cgroup \(path) lies outside the visible \(hierarchy)"))
        }
        for mount in mounts {
            let root = mount.root == "/" ? "" : mount.root
            guard path == mount.root || path.hasPrefix(root + "/") else { continue }
            let below = String(path.dropFirst(root.count))
            let directory = mount.mountPoint + (below == "/" ? "" : below)
            return .success(directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory)
        }
        return .failure(FreezeError("our cgroup \(path) is not below any mount of \(hierarchy)"))
    }

    /// Lines of /proc/<pid>/mountinfo: `id parent major:minor root mount-point options
    /// [optional fields] - fstype source super-options`.
    static func parseMountinfo(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count >= 7, let separator = fields.firstIndex(of: "-"), separator >= 6,
                fields.count >= separator + 3
            else { return nil }
            return Mount(
                root: unescape(fields[3]), mountPoint: unescape(fields[4]), fileSystem: fields[separator + 1],
                superOptions: fields.count > separator + 3
                    ? fields[separator + 3].split(separator: ",").map(String.init) : [])
        }
    }

    /// Lines of /proc/<pid>/cgroup. The path may contain ':', so only the first two split.
    static func parseCgroups(_ text: String) -> [Membership] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let id = Int(fields[0]) else { return nil }
            return Membership(
                hierarchyID: id, controllers: fields[1].split(separator: ",").map(String.init), path: String(fields[2]))
        }
    }

    /// mountinfo writes space, tab, newline and backslash in paths as `\ooo` octal escapes.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[index + 1...index + 3], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
