import CApphost
import Foundation

/// One guest's `apphost_host_t`: at a fixed address from before init until after deinit, with
/// functions that accept any arguments at all (CONTRACT X3).
final class HostInterface: @unchecked Sendable {
    // `pointer` and the strings it holds are written once here and freed once in `tearDown`, on
    // the guest's main queue after deinit returned; the guest reads them meanwhile.
    let pointer: UnsafeMutablePointer<apphost_host_t>
    private let context: HostContext
    private var tornDown = false

    init(context: HostContext, hostName: String, hostVersion: String) {
        self.context = context
        pointer = .allocate(capacity: 1)
        var host = apphost_host_t()
        host.struct_size = UInt32(MemoryLayout<apphost_host_t>.size)
        host.abi_version = apphost_version_t(
            major: ABIVersion.current.major, minor: ABIVersion.current.minor, revision: ABIVersion.current.revision)
        host.host_data = Unmanaged.passUnretained(context).toOpaque()
        host.name = UnsafePointer(strdup(hostName))
        host.version = UnsafePointer(strdup(hostVersion))
        host.log = HostFunctions.log
        host.data_directory = HostFunctions.dataDirectory
        host.app_state = HostFunctions.appState
        host.scene_state = HostFunctions.sceneState
        host.save_scene_state = HostFunctions.saveSceneState
        host.get_extension = HostFunctions.getExtension
        pointer.initialize(to: host)
        LiveHostContexts.insert(context, for: pointer)
    }

    /// Withdraws the interface: later calls through this pointer get error codes, then the memory
    /// goes. Call only after deinit returned.
    func tearDown() {
        guard !tornDown else { return }
        tornDown = true
        LiveHostContexts.remove(pointer)
        free(UnsafeMutableRawPointer(mutating: pointer.pointee.name))
        free(UnsafeMutableRawPointer(mutating: pointer.pointee.version))
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// The functions of `apphost_host_t`. Each finds its guest through `LiveHostContexts`; see
/// host.h for what each promises.
enum HostFunctions {
    /// What `app_state` returns for a host pointer it does not know: app_state has no error
    /// channel, and a positive status would read as a valid state (1 is INACTIVE).
    static let unknownHostAppState: Int32 = -StatusCode.invalidArgument

    static let log: @convention(c) (UnsafePointer<apphost_host_t>?, Int32, UnsafePointer<CChar>?) -> Int32 = {
        host, level, message in
        guard let context = LiveHostContexts.context(for: host), let message,
            let level = GuestLogLevel(rawValue: level)
        else { return StatusCode.invalidArgument }
        context.emit(.log(level, LogMessage.decode(message)))
        return StatusCode.ok
    }

    static let dataDirectory: @convention(c) (UnsafePointer<apphost_host_t>?) -> UnsafePointer<CChar>? = { host in
        guard let context = LiveHostContexts.context(for: host) else { return nil }
        return UnsafePointer(context.dataDirectory)
    }

    static let appState: @convention(c) (UnsafePointer<apphost_host_t>?) -> Int32 = { host in
        guard let context = LiveHostContexts.context(for: host) else { return unknownHostAppState }
        return context.mirror.appState.rawValue
    }

    static let sceneState:
        @convention(c) (UnsafePointer<apphost_host_t>?, UInt64, UnsafeMutablePointer<Int32>?) -> Int32 = {
            host, scene, outState in
            guard let context = LiveHostContexts.context(for: host), let outState else {
                return StatusCode.invalidArgument
            }
            guard let state = context.mirror.sceneState(scene) else { return StatusCode.invalidHandle }
            outState.pointee = state.rawValue
            return StatusCode.ok
        }

    static let saveSceneState:
        @convention(c) (UnsafePointer<apphost_host_t>?, UInt64, UnsafeRawPointer?, Int) -> Int32 = {
            host, scene, bytes, length in
            guard let context = LiveHostContexts.context(for: host), bytes != nil || length == 0 else {
                return StatusCode.invalidArgument
            }
            guard length <= APPHOST_SCENE_STATE_MAX_BYTES else { return StatusCode.tooLarge }
            // Copied and sent while the scene is known connected, so the save reaches the host before
            // any later did_disconnect reply does.
            let connected = context.mirror.ifConnected(scene) {
                context.emit(.saveSceneState(scene, bytes.map { Data(bytes: $0, count: length) } ?? Data()))
            }
            return connected ? StatusCode.ok : StatusCode.invalidHandle
        }

    static let getExtension:
        @convention(c) (UnsafePointer<apphost_host_t>?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = {
            _, _ in
            // No extensions yet; a NULL or unknown host or id gets NULL as well.
            nil
        }
}
