import ApphostModel
import ApphostVocabulary
import ApphostWire
import Foundation
import Synchronization

/// One worker's container (CONTRACT X6, A6): the parts it enforces before its guest loads, and
/// the paths the operator granted its guest to read.
public struct WorkerContainer: Sendable, Equatable {
    public var parts: [SandboxPart]
    public var grants: [String]
    /// The call filter's program for these parts, or nil for the worker to compile it.
    var callFilter: String?

    public init(parts: [SandboxPart], grants: [String] = []) {
        self.parts = parts
        self.grants = grants
    }

    /// The variables `environment` sets, which a worker never inherits from its host.
    static let variableNames = [
        APPHOST_WORKER_SANDBOX_VARIABLE, APPHOST_WORKER_GRANTS_VARIABLE, APPHOST_WORKER_CALL_FILTER_VARIABLE,
    ]

    /// What a worker's environment says of it (apphost_wire.h); none without parts.
    var environment: [String] {
        guard !parts.isEmpty else { return [] }
        var variables = [APPHOST_WORKER_SANDBOX_VARIABLE + "=" + parts.map(\.rawValue).joined(separator: ",")]
        if !grants.isEmpty { variables.append(APPHOST_WORKER_GRANTS_VARIABLE + "=" + grants.joined(separator: "\n")) }
        if let callFilter, parts.contains(.calls) {
            variables.append(APPHOST_WORKER_CALL_FILTER_VARIABLE + "=" + callFilter)
        }
        return variables
    }
}

/// How a host contains its guests: the parts its machine enforces and the operator's grants; for
/// each guest, exactly what its entitlements add (CONTRACT A6).
public struct ContainerPolicy: Sendable {
    /// The parts every worker enforces, the network's included; empty for no container.
    public var parts: [SandboxPart]
    /// What the operator granted each guest, by id (`--grant id:PATH:ro`).
    public var grants: [String: [String]]
    /// The call filter's programs, compiled once; nil for each worker to compile its own.
    public var callFilters: CallFilterPrograms?

    public init(parts: [SandboxPart] = [], grants: [String: [String]] = [:], callFilters: CallFilterPrograms? = nil) {
        self.parts = parts
        self.grants = grants
        self.callFilters = callFilters
    }

    /// The host's container for what this machine has (`WorkerSandbox.support`).
    public init(_ support: WorkerSandbox, grants: [String: [String]] = [:]) {
        self.init(parts: support.available, grants: grants, callFilters: support.callFilters)
    }

    /// The container of the guest `descriptor` describes: no network part for the network
    /// entitlement, and what the operator granted it.
    func container(for descriptor: GuestIdentity) -> WorkerContainer {
        let parts = descriptor.capabilities.contains(.network) ? parts.filter { $0 != .network } : parts
        return container(parts, grants: parts.contains(.filesystem) ? grants[descriptor.id] ?? [] : [])
    }

    /// The container of a library whose guest is not known yet: everything, nothing granted.
    var unknownGuest: WorkerContainer { container(parts, grants: []) }

    private func container(_ parts: [SandboxPart], grants: [String]) -> WorkerContainer {
        var container = WorkerContainer(parts: parts, grants: grants)
        container.callFilter =
            parts.contains(.network) ? callFilters?.withNetworkPart : callFilters?.withoutNetworkPart
        return container
    }
}

/// What a guest is, as far as its container goes.
struct GuestIdentity: Sendable, Equatable {
    var id: String
    var capabilities: GuestDescriptor.Capabilities
}

/// The guests of libraries the opener has loaded, so that a guest entitled to more than the
/// unknown guest's container (the network, a grant) is loaded once in its own after the first
/// time: the worker must be cut off before the library loads, and only the loaded library says
/// what it declares. A library that changed on disk is unknown again; at most `capacity` are kept.
final class KnownLibraries: Sendable {
    static let capacity = 1024

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        /// The modification time, in nanoseconds.
        var modified: Int64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        }
    }

    /// Each library's guest, by canonical path, with the file it was read from.
    private let entries = Mutex<[String: (file: FileIdentity, guest: GuestIdentity)]>([:])

    /// The guest of the library at `canonicalPath`, when it has not changed since it was loaded.
    func guest(at canonicalPath: String) -> GuestIdentity? {
        guard let file = FileIdentity(path: canonicalPath) else { return nil }
        return entries.withLock { $0[canonicalPath].flatMap { $0.file == file ? $0.guest : nil } }
    }

    func remember(_ guest: GuestIdentity, at canonicalPath: String) {
        guard let file = FileIdentity(path: canonicalPath) else { return }
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[canonicalPath] == nil { entries.removeAll() }
            entries[canonicalPath] = (file, guest)
        }
    }
}
