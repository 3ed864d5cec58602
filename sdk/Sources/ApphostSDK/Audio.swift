import CApphost
import Synchronization

extension Apphost {
    /// The guest's one audio session, "apphost.audio/1" (`audio.h`, ABI 1.4; its sound, ABI 1.5): what
    /// `AVAudioSession.sharedInstance()` is to an iOS app. The same object for the whole launch.
    /// On a host that does not offer the extension, ``AudioSession/isAvailable`` is false and
    /// every method throws ``ApphostError/unsupported``. Thread-safe.
    public var audioSession: AudioSession { audio }
}

/// The guest's audio session (CONTRACT C1 to C15, B9): a category, mode and options that say
/// how its sound goes along with other guests', activation, interruptions, routes, ducking and
/// the silence switch, and the sound itself, which a renderer writes (``setRenderer(_:)``, ABI
/// 1.5). Get it from ``Apphost/audioSession``.
///
/// Every guest has one, from launch on, as ``AudioCategory/soloAmbient`` with the default mode
/// and no options, inactive (C1). Activation asks the host for sound; the host arbitrates between
/// guests and answers later. While active and not interrupted, the session is in the host's mix
/// at a level the host computes: its volume times the guest's ``gain``, 20 dB lower while
/// another session ducks others (C8), muted by the silence switch for ambient and soloAmbient
/// (C9). An active session stops being active only by ``deactivate(notifyOthers:)``, an
/// interruption (``AudioSessionEvent/interruptionBegan(reason:)`` says so) or a media services
/// reset (C15).
///
/// A typical player:
///
/// ```swift
/// import ApphostSDK
///
/// @GuestActor final class Player {
///     let session: AudioSession
///     var playing = false
///
///     init(host: Apphost) throws {
///         session = host.audioSession
///         try session.setCategory(.playback)
///         Task { for await event in session.events { handle(event) } }
///     }
///
///     func play() async {
///         do {
///             try await session.activate()  // throws AudioActivationError when refused (C5)
///             try session.setRendering(true)  // say it again after every activation
///             playing = true
///         } catch {
///             playing = false
///         }
///     }
///
///     func pause() {
///         playing = false
///         try? session.setRendering(false)
///     }
///
///     func handle(_ event: AudioSessionEvent) {
///         switch event {
///         case .interruptionBegan: playing = false  // already inactive (C6)
///         case .interruptionEnded(_, let shouldResume): if shouldResume { Task { await play() } }
///         case .routeChanged(let reason, _, _) where reason == .oldDeviceUnavailable: pause()  // C10
///         case .mediaServicesReset: try? session.setCategory(.playback)  // set up again (C15)
///         default: break
///         }
///     }
/// }
/// ```
///
/// Threading: every member is thread-safe but ``onEvent``, which the host's callbacks run on the
/// main queue (``GuestActor``). ``activate()`` may be awaited from anywhere. Events come on the
/// main queue, one at a time with the other callbacks, in the host's order; each stream from
/// ``events`` delivers them from its own job on ``GuestActor``, so code that must act before
/// the callback returns sets ``onEvent`` instead. Nothing is delivered while the guest is
/// suspended (B7): a suspended guest hears of its interruption when it resumes (C14, B8).
///
/// `@unchecked Sendable`: it holds the host's constant table, whose functions are thread-safe,
/// and keeps the rest behind a lock.
public final class AudioSession: @unchecked Sendable {
    let host: UnsafePointer<apphost_host_t>
    /// The host's table, or nil when it does not offer the extension.
    private let table: UnsafePointer<apphost_audio_t>?
    private let state = Mutex(State())

    private struct State {
        /// activate()'s callers, by request id, until activation_finished answers.
        var activations: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// The streams handed out by `events`, by a key of their own.
        var streams: [Int: AsyncStream<AudioSessionEvent>.Continuation] = [:]
        var nextStream = 0
        var handler: (@GuestActor (AudioSessionEvent) -> Void)?
        /// The guest was unloaded: the host pointer is gone.
        var closed = false
    }

    /// Asks the host for its table; a guest's `init` may (get_extension is thread-safe).
    init(host: UnsafePointer<apphost_host_t>) {
        self.host = host
        let pointer = host.pointee.get_extension?(host, APPHOST_AUDIO_EXTENSION_ID)
        let table = pointer?.assumingMemoryBound(to: apphost_audio_t.self)
        // A table too small to say its size is no table (a broken host).
        self.table = table.flatMap { $0.pointee.struct_size >= 4 ? $0 : nil }
    }

    /// True when the host offers the audio extension (ABI 1.4). Without it, every method throws
    /// ``ApphostError/unsupported``, the session reads as at launch, and no event comes.
    public var isAvailable: Bool { table != nil }

    /// A member of the host's table, or ``ApphostError/unsupported`` when the host has no table,
    /// or one that ends before the member (an older host), or a NULL member.
    /// ``ApphostError/invalidState`` once the guest is unloaded.
    private func member<Function>(_ path: KeyPath<apphost_audio_t, Function?>) throws -> Function {
        guard let table else { throw ApphostError.unsupported }
        guard let offset = MemoryLayout<apphost_audio_t>.offset(of: path),
            offset + MemoryLayout<UnsafeRawPointer>.size <= Int(table.pointee.struct_size),
            let function = table.pointee[keyPath: path]
        else { throw ApphostError.unsupported }
        if state.withLock({ $0.closed }) { throw ApphostError.invalidState }
        return function
    }

    // MARK: - Configuration

    /// Sets the session's category, mode and options in one call (CONTRACT C1, C3, C4): options
    /// not given are off, so setting a category resets them. Throws
    /// ``ApphostError/invalidCombination`` for a combination the table refuses (mixing outside
    /// playback and playAndRecord, ``AudioSessionOptions/defaultToSpeaker`` outside
    /// playAndRecord, a mode outside its category), ``ApphostError/invalidArgument`` for a value
    /// the host does not know; either way nothing changes. May be called while the session is
    /// active: one that stops mixing then interrupts the others as its activation would have.
    public func setCategory(
        _ category: AudioCategory, mode: AudioMode = .default, options: AudioSessionOptions = []
    ) throws {
        let set = try member(\.set_configuration)
        try ApphostError.check(set(host, category.rawValue, mode.rawValue, options.rawValue))
    }

    // MARK: - Activity

    /// Activates the session (CONTRACT C5), with its configuration as of this call, and returns
    /// once the host has decided: the session is active then (unless ``deactivate(notifyOthers:)``
    /// was called meanwhile), so start playing, and say so with ``setRendering(_:)``. Activating
    /// a session that does not mix interrupts every other active session that does not mix;
    /// activating an active session changes nothing.
    ///
    /// Throws ``AudioActivationError`` when the host refuses (a call holds audio, or the guest is
    /// in background with a session that does not mix), and ``ApphostError/invalidState`` when
    /// it cannot take the request (the guest is being suspended or terminated). Cancelling the
    /// caller's task does not withdraw the request: this still returns what the host decided.
    ///
    /// `isolation` is the caller's, which it keeps: called from ``GuestActor`` (a callback's
    /// `Task`), the request and its answer stay on the main queue, with no hop to another thread.
    public func activate(isolation: isolated (any Actor)? = #isolation) async throws {
        let activate = try member(\.activate)
        try await withCheckedThrowingContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<Void, any Error>) in
            // Under the lock, so that activation_finished, which may come on the main queue as
            // soon as the host has the request, finds the continuation (the host's thread-safe
            // functions never wait for the main queue, so this cannot deadlock).
            let failure = state.withLock { state -> ApphostError? in
                var request = APPHOST_AUDIO_REQUEST_INVALID
                if let error = ApphostError(status: activate(host, &request)) { return error }
                state.activations[request] = continuation
                return nil
            }
            if let failure { continuation.resume(throwing: failure) }
        }
    }

    /// Ends the session's activity at once: it is inactive when this returns and the host stops
    /// mixing it. With `notifyOthers`, the sessions it interrupted hear
    /// ``AudioSessionEvent/interruptionEnded(reason:shouldResume:)``, told to resume if they were
    /// playing (CONTRACT C7); say it when your sound was short, such as a prompt, so that what it
    /// interrupted may go on. Without, they hear nothing more. Deactivating an inactive session
    /// succeeds, and notifies as above.
    public func deactivate(notifyOthers: Bool) throws {
        let deactivate = try member(\.deactivate)
        try ApphostError.check(deactivate(host, notifyOthers ? APPHOST_AUDIO_NOTIFY_OTHERS.rawValue : 0))
    }

    /// Tells the host whether the guest plays (or records) through its session now, or has
    /// paused. The host resumes after an interruption only the sessions that were playing
    /// (CONTRACT C7), and keeps a background guest running only while it plays (B9). It forgets
    /// it whenever the session becomes inactive: say it again after each activation.
    public func setRendering(_ rendering: Bool) throws {
        let set = try member(\.set_rendering)
        try ApphostError.check(set(host, rendering ? 1 : 0))
    }

    /// Sets the guest's relative gain, from 0 (silent) to 1 (as rendered, the default) (CONTRACT
    /// C12): the host's volume, ducking and the silence switch apply on top. Throws
    /// ``ApphostError/invalidArgument`` outside 0 to 1, or for NaN.
    public func setGain(_ gain: Double) throws {
        let set = try member(\.set_gain)
        try ApphostError.check(set(host, gain))
    }

    /// ``AudioCategory/playAndRecord`` only: sends the session's sound to the speaker whatever
    /// else is plugged in (``AudioOutputOverride/speaker``), or back to the route the devices give
    /// (``AudioOutputOverride/none``). ``AudioSessionEvent/routeChanged(reason:previous:current:)``
    /// with ``AudioRouteChangeReason/override`` follows when the route changes. The override ends
    /// with ``setCategory(_:mode:options:)`` and when a new device is plugged in. Throws
    /// ``ApphostError/invalidState`` for another category.
    public func overrideOutput(_ override: AudioOutputOverride) throws {
        let set = try member(\.override_output)
        try ApphostError.check(set(host, override.rawValue))
    }

    // MARK: - What the session is

    /// The session as of now, read at once (`get_session`), so that its members agree.
    public func currentState() throws -> AudioSessionState {
        let get = try member(\.get_session)
        var session = apphost_audio_session_t()
        session.struct_size = UInt32(MemoryLayout<apphost_audio_session_t>.size)
        try ApphostError.check(get(host, &session))
        return AudioSessionState(session)
    }

    /// The session as of now, or as at launch when the host cannot say.
    private var current: AudioSessionState { (try? currentState()) ?? .initial }

    /// The session's category (``AudioCategory/soloAmbient`` until set).
    public var category: AudioCategory { current.category }
    /// The session's mode.
    public var mode: AudioMode { current.mode }
    /// The session's options, with the ``AudioSessionOptions/mixWithOthers`` that duckOthers and
    /// interruptSpokenAudioAndMixWithOthers imply.
    public var options: AudioSessionOptions { current.options }
    /// True while the session is active.
    public var isActive: Bool { current.isActive }
    /// The session's route, as of the last route change delivered.
    public var route: AudioRoute { current.route }
    /// The host's audio format: frames per second (0 when the host cannot say).
    public var sampleRate: UInt32 { current.sampleRate }
    /// Frames per period: the host mixes one period at a time.
    public var periodFrames: UInt32 { current.periodFrames }
    /// Interleaved channels.
    public var channelCount: UInt32 { current.channelCount }
    /// The guest's relative gain, 0 to 1 (``setGain(_:)``).
    public var gain: Double { current.gain }

    // MARK: - Events

    /// The session's events from now on, as the host delivers them on the main queue. Each access
    /// makes a new stream, which gets every event from then on until the guest is unloaded (then
    /// it finishes) or the stream's consumer goes away; several may run at once. Iterate it in a
    /// task that lives as long as your audio code:
    ///
    /// ```swift
    /// Task { for await event in session.events { handle(event) } }
    /// ```
    ///
    /// Written in a callback, that task runs on ``GuestActor``: `handle` may use the delegates'
    /// state. It sees each event shortly after the callback returned; use ``onEvent`` for code
    /// that must run inside it.
    public var events: AsyncStream<AudioSessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AudioSessionEvent.self)
        let key = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// A closure that the host's callbacks run, on the main queue, before the callback returns
    /// and before any stream of ``events`` sees the event; nil (the default) for none. For code
    /// that must act at once, such as a player that pauses its own rendering thread when the
    /// headphones go (C10).
    @GuestActor
    public var onEvent: (@GuestActor (AudioSessionEvent) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    // MARK: - The host's calls (GuestCallbacks.swift), on the main queue

    /// activation_finished: answers the caller of ``activate()`` that made `request`. A request
    /// the SDK did not make (C code of the guest's own calling the table) is not its to answer.
    func activationFinished(_ request: UInt64, result: Int32) {
        guard let continuation = state.withLock({ $0.activations.removeValue(forKey: request) }) else { return }
        if result == Int32(APPHOST_AUDIO_ACTIVATED.rawValue) {
            continuation.resume()
        } else {
            continuation.resume(throwing: AudioActivationError(result: result))
        }
    }

    /// Hands `event` to ``onEvent``, then to every stream.
    @GuestActor
    func deliver(_ event: AudioSessionEvent) {
        let (handler, streams) = state.withLock { ($0.handler, Array($0.streams.values)) }
        handler?(event)
        for stream in streams { stream.yield(event) }
    }

    /// The guest is being unloaded (deinit): the host answers no more, and its pointer dies.
    /// Streams finish, pending activations throw ``ApphostError/invalidState``, and every method
    /// throws it from now on.
    func close() {
        let (activations, streams) = state.withLock { state in
            state.closed = true
            state.handler = nil
            defer {
                state.activations.removeAll()
                state.streams.removeAll()
            }
            return (Array(state.activations.values), Array(state.streams.values))
        }
        for continuation in activations { continuation.resume(throwing: ApphostError.invalidState) }
        for stream in streams { stream.finish() }
    }
}

/// An audio session as `get_session` tells it (`apphost_audio_session_t`).
public struct AudioSessionState: Sendable, Hashable {
    public var category: AudioCategory
    public var mode: AudioMode
    /// With the ``AudioSessionOptions/mixWithOthers`` that the other mixing options imply.
    public var options: AudioSessionOptions
    public var isActive: Bool
    /// As of the last route change delivered.
    public var route: AudioRoute
    /// The host's audio format: frames per second, frames per period (the host mixes one period
    /// at a time) and interleaved channels.
    public var sampleRate: UInt32
    public var periodFrames: UInt32
    public var channelCount: UInt32
    /// The guest's relative gain, 0 to 1.
    public var gain: Double

    public init(
        category: AudioCategory, mode: AudioMode, options: AudioSessionOptions, isActive: Bool, route: AudioRoute,
        sampleRate: UInt32, periodFrames: UInt32, channelCount: UInt32, gain: Double
    ) {
        self.category = category
        self.mode = mode
        self.options = options
        self.isActive = isActive
        self.route = route
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.channelCount = channelCount
        self.gain = gain
    }

    init(_ session: apphost_audio_session_t) {
        self.init(
            category: AudioCategory(rawValue: session.category), mode: AudioMode(rawValue: session.mode),
            options: AudioSessionOptions(rawValue: session.options), isActive: session.active != 0,
            route: AudioRoute(
                output: AudioOutput(rawValue: session.output), input: AudioInput(rawValue: session.input)),
            sampleRate: session.sample_rate, periodFrames: session.period_frames, channelCount: session.channel_count,
            gain: session.gain)
    }

    /// Every session at launch (CONTRACT C1): soloAmbient, the default mode, no options,
    /// inactive, no route, a gain of 1; and what a host without the extension reads as.
    public static let initial = AudioSessionState(
        category: .soloAmbient, mode: .default, options: [], isActive: false, route: AudioRoute(output: .none),
        sampleRate: 0, periodFrames: 0, channelCount: 0, gain: 1)
}
