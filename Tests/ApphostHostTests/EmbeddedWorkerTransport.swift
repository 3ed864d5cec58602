import ApphostFreezing
import ApphostPolicy
import Foundation
import Glibc

@testable import ApphostChannels

/// An in-memory worker for a `WorkerChannel`, as swift-nio's EmbeddedChannel is for its channels:
/// no socket, no process, no event loop, no freezer. What the channel writes is kept for the test
/// to read (`written()`); frames are injected as if the worker sent them (`inject`, which runs the
/// channel's read on the test's thread as the loop would, or `enqueue`, which only leaves them in
/// the socket for the channel's next read); freezes, thaws, the close timer and the worker's end
/// happen when the test says (`confirmFreeze`, `confirmThaw`, `fireCloseTimer`, `exit`).
final class EmbeddedWorkerTransport: WorkerTransport, @unchecked Sendable {
    // `lock` guards every member below it: the channel calls in under its own lock, the test from
    // its thread; the test's calls into the channel are made without `lock` held.
    let pid: pid_t = 999_999
    private let lock = NSLock()
    private var channel: WorkerChannel?
    /// Bytes the channel wrote, not yet read by the test.
    private var outgoing: [UInt8] = []
    /// Bytes "the worker" sent, not yet read by the channel; then its end of file.
    private var incoming: [UInt8] = []
    private var endOfFile = false
    private var freezes: [@Sendable (Result<Void, FreezeError>) -> Void] = []
    private var thaws: [@Sendable (Result<Void, FreezeError>) -> Void] = []
    private var reaper: (@Sendable (WorkerExit, String?) -> Void)?
    private var closeTimer: (@Sendable () -> Void)?
    private var kills: [Bool] = []
    private var demoted = false

    // MARK: What the test sees

    /// Whether the channel still watches the socket.
    var isConnected: Bool { lock.withLock { channel != nil } }
    /// Each kill, with whether a thaw went with it.
    var killed: [Bool] { lock.withLock { kills } }
    var freezesAsked: Int { lock.withLock { freezes.count } }
    var thawsAsked: Int { lock.withLock { thaws.count } }
    var closeTimerArmed: Bool { lock.withLock { closeTimer != nil } }
    var reaping: Bool { lock.withLock { reaper != nil } }

    /// The frames the channel wrote since the last call, decoded as the worker would.
    func written() throws -> [HostToWorkerMessage] {
        var decoder = WireFrameDecoder()
        decoder.append(
            lock.withLock { () -> [UInt8] in
                defer { outgoing = [] }
                return outgoing
            })
        var messages: [HostToWorkerMessage] = []
        while let frame = try decoder.next() { messages.append(try HostToWorkerMessage(frame)) }
        return messages
    }

    /// `messages` arrive in the socket, and the channel reads them (as the loop's handler does).
    func inject(_ messages: [WorkerToHostMessage]) {
        enqueue(messages)
        ready()
    }

    /// `messages` wait in the socket, unread until the channel next reads.
    func enqueue(_ messages: [WorkerToHostMessage]) {
        let bytes = messages.flatMap(\.frame.encoded)
        lock.withLock { incoming += bytes }
    }

    /// Bytes, whole frames or not, arrive in the socket and the channel reads them.
    func inject(bytes: [UInt8]) {
        lock.withLock { incoming += bytes }
        ready()
    }

    /// The worker ends this way: its end of file and its exit reach the channel, which then
    /// disconnects, and the reaper finds it ended so. After a protocol error the channel has
    /// disconnected already and only the reaper hears.
    func exit(_ exit: WorkerExit, limitReason: String? = nil) {
        lock.withLock { endOfFile = true }
        withBuffer { buffer in lock.withLock { channel }?.workerExited(buffer: buffer) }
        lock.withLock { () -> (@Sendable (WorkerExit, String?) -> Void)? in
            defer { reaper = nil }
            return reaper
        }?(exit, limitReason)
    }

    /// The oldest freeze asked ends with `result`.
    func confirmFreeze(_ result: Result<Void, FreezeError> = .success(())) {
        lock.withLock { freezes.removeFirst() }(result)
    }

    func confirmThaw(_ result: Result<Void, FreezeError> = .success(())) {
        lock.withLock { thaws.removeFirst() }(result)
    }

    func fireCloseTimer() {
        lock.withLock { closeTimer }?()
    }

    /// Level-triggered, as the loop's epoll: the channel is told again while bytes wait.
    private func ready() {
        while let channel = lock.withLock({ incoming.isEmpty ? nil : channel }) {
            withBuffer { buffer in channel.socketReady(readable: true, writable: false, buffer: buffer) }
        }
    }

    /// A read buffer smaller than most frames, so that frames arrive in pieces.
    private func withBuffer(_ body: (UnsafeMutableRawBufferPointer) -> Void) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        body(buffer)
    }

    // MARK: WorkerTransport

    func connect(_ channel: WorkerChannel) {
        lock.withLock { self.channel = channel }
    }

    func flush(_ outbound: inout OutboundBytes) {
        _ = outbound.flush { bytes in lock.withLock { outgoing += bytes } }
    }

    func receive(
        into buffer: UnsafeMutableRawBufferPointer, reads: Int, _ handle: (UnsafeRawBufferPointer) -> Bool
    ) -> WorkerReceipt {
        for _ in 0..<reads {
            let (count, ended) = lock.withLock { () -> (Int, Bool) in
                let count = min(buffer.count, incoming.count)
                incoming.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                incoming.removeFirst(count)
                return (count, endOfFile)
            }
            if count == 0 { return ended ? .ended : .drained }
            guard handle(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return .drained }
            if count < buffer.count { return .drained }
        }
        return .more
    }

    func disconnect() {
        lock.withLock { channel = nil }
    }

    func reap(then ended: @escaping @Sendable (WorkerExit, String?) -> Void) {
        lock.withLock { reaper = ended }
    }

    func kill(thawing: Bool) {
        lock.withLock { kills.append(thawing) }
    }

    func freeze(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void) {
        lock.withLock { freezes.append(done) }
    }

    func thaw(then done: @escaping @Sendable (Result<Void, FreezeError>) -> Void) {
        lock.withLock { thaws.append(done) }
    }

    func armCloseTimer(after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        lock.withLock { closeTimer = fire }
    }

    func cancelCloseTimer() {
        lock.withLock { closeTimer = nil }
    }

    /// Real-time audio threads: never, in memory.
    func promoteAudioThread(_ thread: Int32) -> Bool { false }

    func demoteAudioThread(_ thread: Int32) -> Bool {
        lock.withLock { demoted = true }
        return true
    }

    func audioThreadCPUTime(_ thread: Int32) -> Duration? { nil }
}
