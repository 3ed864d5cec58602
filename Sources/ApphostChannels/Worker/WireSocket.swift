import Glibc

/// The host end of a worker's socket while the host waits for each answer in turn (loading,
/// inspecting), every wait bounded by one deadline. Non-blocking underneath, so that the
/// `WorkerChannel` that takes it over later can use it as it is, with the bytes already received.
struct WireSocket {
    enum Failure: Error {
        /// The worker closed its end or the connection broke: it is exiting or gone.
        case closed
        case timedOut
        case protocolError(WireProtocolError)
    }

    let descriptor: Int32
    private(set) var decoder = WireFrameDecoder()

    /// Takes charge of `descriptor` and makes it non-blocking.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Writes a whole frame's `bytes`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a worker that died must not take the host down with SIGPIPE.
            let count = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
            } else if count < 0, errno == EAGAIN || errno == EINTR {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else {
                throw .closed
            }
        }
    }

    /// The next message from the worker.
    mutating func read(deadline: ContinuousClock.Instant) throws(Failure) -> WorkerToHostMessage {
        while true {
            do {
                if let frame = try decoder.next() { return try WorkerToHostMessage(frame) }
            } catch {
                throw .protocolError(error)
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                decoder.append(buffer[..<count])
            } else if count < 0, errno == EAGAIN || errno == EINTR {
                try wait(for: Int16(POLLIN), until: deadline)
            } else {
                throw .closed
            }
        }
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(Failure) {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw .timedOut }
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        let milliseconds = Int32(min(remaining.timeInterval * 1000 + 1, Double(Int32.max)))
        let ready = poll(&entry, 1, milliseconds)
        if ready == 0 { throw .timedOut }
        // Readiness, an error or a hang-up: the next send or recv tells which.
    }
}
