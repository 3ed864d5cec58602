import ApphostVocabulary
import Dispatch
import Foundation
import Synchronization

/// Tells a service manager how the host is doing (CONTRACT O3), with systemd's notify protocol
/// and without libsystemd: each message is one datagram of `KEY=value` lines to the AF_UNIX
/// socket `$NOTIFY_SOCKET` names (a leading `@` means the abstract namespace), as sd_notify(3)
/// sends it. Without `NOTIFY_SOCKET` it does nothing.
///
/// The watchdog (`WATCHDOG_USEC`, and `WATCHDOG_PID` when set, which must be this process) is fed
/// at half its period by a timer on the queue it is given, the host queue: a host whose queue is
/// stuck stops feeding it, and the service manager restarts it.
///
/// Sends never wait: a manager that does not read its socket costs messages, not the host.
public final class ServiceNotifier: Sendable {
    /// What the environment asked for.
    public struct Configuration: Equatable, Sendable {
        /// The socket's address as `NOTIFY_SOCKET` gives it.
        public var socket: String
        /// How often to say WATCHDOG=1 (half of `WATCHDOG_USEC`), or nil when no watchdog is set
        /// or it is another process's.
        public var watchdogInterval: Duration?

        public init(socket: String, watchdogInterval: Duration? = nil) {
            self.socket = socket
            self.watchdogInterval = watchdogInterval
        }

        /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` as sd_watchdog_enabled(3)
        /// does; nil when there is no socket to notify (unset, empty, or not a Unix socket's
        /// address: systemd's `vsock:` addresses are not spoken here).
        public static func from(environment: [String: String], pid: pid_t = getpid()) -> Configuration? {
            guard let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@"),
                socket.count > 1
            else { return nil }
            var configuration = Configuration(socket: socket)
            let ours = environment["WATCHDOG_PID"].map { pid_t($0) == pid } ?? true
            if ours, let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 {
                configuration.watchdogInterval = .microseconds(microseconds / 2)
            }
            return configuration
        }
    }

    public let configuration: Configuration
    private let descriptor: Int32
    private let address: sockaddr_un
    private let addressLength: socklen_t
    private let watchdogTimer = Mutex<WatchdogTimer?>(nil)

    /// The environment's notifier, or nil when the host runs under no service manager (or its
    /// address cannot be used).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> ServiceNotifier?
    {
        Configuration.from(environment: environment).flatMap(ServiceNotifier.init)
    }

    /// Nil when the address does not fit a `sockaddr_un` or no socket can be made.
    public init?(_ configuration: Configuration) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(configuration.socket.utf8)
        // Abstract: a leading NUL, and the length counts exactly the name's bytes.
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity || (abstract && path.count == capacity) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let length = pathOffset + path.count + (abstract ? 0 : 1)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.configuration = configuration
        self.descriptor = descriptor
        self.address = address
        self.addressLength = socklen_t(length)
    }

    deinit {
        watchdogTimer.withLock { $0?.timer.cancel() }
        close(descriptor)
    }

    /// READY=1: the host serves, with its pid (MAINPID, for a host started through a wrapper) and
    /// a status line for `systemctl status`.
    public func ready(status: String) {
        send("READY=1\nMAINPID=\(getpid())\nSTATUS=\(Self.oneLine(status))")
    }

    /// STOPPING=1: shutdown has begun.
    public func stopping(status: String) {
        send("STOPPING=1\nSTATUS=\(Self.oneLine(status))")
    }

    /// A new STATUS= line alone.
    public func status(_ status: String) {
        send("STATUS=\(Self.oneLine(status))")
    }

    /// WATCHDOG=1, once.
    public func watchdog() {
        send("WATCHDOG=1")
    }

    /// Says WATCHDOG=1 every `watchdogInterval` from work on `hostQueue`, the first time at once;
    /// nothing when no watchdog was asked for. Calling it again starts over. The timer fires on a
    /// queue of its own and the ping runs on the host queue, so a stuck host queue stops them.
    public func startWatchdog(on hostQueue: any HostExecutor) {
        guard let interval = configuration.watchdogInterval else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "apphost.watchdog"))
        let nanoseconds = max(1, Int(min(interval.timeInterval, 1e9) * 1e9))
        // A tenth of the interval of leeway: the pings stay well within systemd's period.
        timer.schedule(
            deadline: .now(), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 10))
        let timerID = ObjectIdentifier(timer as AnyObject)
        timer.setEventHandler { [weak self] in
            hostQueue.execute { [weak self] in
                // Not once stopped or started over: a ping may be queued when its timer goes.
                guard let self,
                    self.watchdogTimer.withLock({ $0.map { ObjectIdentifier($0.timer as AnyObject) } == timerID })
                else { return }
                self.watchdog()
            }
        }
        timer.activate()
        let previous = watchdogTimer.withLock { current in
            defer { current = WatchdogTimer(timer: timer) }
            return current
        }
        previous?.timer.cancel()
    }

    /// Stops the watchdog's timer.
    public func stopWatchdog() {
        watchdogTimer.withLock { current in
            current?.timer.cancel()
            current = nil
        }
    }

    /// Sends one message; what cannot go at once (the manager's queue is full, it went away) is
    /// dropped.
    public func send(_ message: String) {
        var address = address
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(
                        descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), socketAddress,
                        addressLength)
                }
            }
        }
    }

    /// A value may not span lines: each line of a message is one assignment.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// A Dispatch timer, which may be cancelled from any thread.
private struct WatchdogTimer: @unchecked Sendable {
    let timer: any DispatchSourceTimer
}
