import CApphost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// MARK: - The C bridge
//
// ApphostGuestEntry's entry.c forwards apphost_entry's descriptor, init, deinit
// and query to these four functions (their C declarations are in
// ApphostGuestEntry.h); query answers with the callback tables of
// GuestCallbacks.swift, whose members are Swift closures. They are public only
// so that the compiler keeps their symbols; their hidden C declarations
// (ApphostGuestEntry.h) keep them out of the guest library's exports, and
// guests must not call them.

/// Fills the C descriptor from the registered type, with the table of its
/// actions (ActionTable.swift). The strings and the table are malloc'd and
/// never freed: entry.c pins the library for the life of the process, and the
/// descriptor must stay readable as long as the library is.
@_cdecl("apphost_sdk_fill_descriptor")
public func _apphostSDKFillDescriptor(_ out: UnsafeMutablePointer<apphost_guest_descriptor_t>?) -> Bool {
    guard let out, let type = RunningApp.appType else { return false }
    let descriptor = type.descriptor
    func copy(_ string: String?) -> UnsafePointer<CChar>? {
        guard let string else { return nil }
        return UnsafePointer(strdup(string))
    }
    out.pointee = apphost_guest_descriptor_t(
        struct_size: UInt32(MemoryLayout<apphost_guest_descriptor_t>.size),
        id: copy(descriptor.id),
        name: copy(descriptor.name),
        version: copy(descriptor.version),
        vendor: copy(descriptor.vendor),
        description: copy(descriptor.summary),
        capabilities: descriptor.capabilities.rawValue,
        actions: ActionTable.make(for: type))
    return true
}

@_cdecl("apphost_sdk_init")
public func _apphostSDKInit(_ host: UnsafePointer<apphost_host_t>?) -> Int32 {
    guard let host, let wrapped = Apphost(host) else { return ApphostError.invalidArgument.status }
    guard let type = RunningApp.appType else {
        wrapped.log(level: .error, "ApphostSDK: no @main GuestApp type registered itself")
        return ApphostError.guestFailed.status
    }
    return onMainQueue {
        // A second init without deinit would be a host bug; start afresh anyway.
        RunningApp.current = RunningApp(host: wrapped, app: type.init())
        return 0
    }
}

@_cdecl("apphost_sdk_deinit")
public func _apphostSDKDeinit() {
    onMainQueue {
        // Before the executor stops: streams finish and activate() callers learn the guest is
        // going; the host answers no more.
        RunningApp.current?.host.audioSession.close()
        RunningApp.current = nil
    }
    // The runtime stopped the audio thread before deinit: the renderers may go.
    AudioRenderSlot.reset()
    // The host runs nothing after deinit: drop the actor's waiting jobs, and take back every
    // closure context it still holds (timers never cancelled, tasks never ended, queued work).
    MainQueueExecutor.shared.stop()
    HostCallout.releaseAll()
}

/// [thread-safe] apphost_entry.query: the callback table of `interfaceID`, or nil for an
/// interface the SDK does not implement (GuestCallbacks.swift).
@_cdecl("apphost_sdk_query")
public func _apphostSDKQuery(_ interfaceID: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let interfaceID else { return nil }
    return GuestCallbacks.table(for: interfaceID)
}
