import ApphostModel

/// How the host mixes (CONTRACT C13): its format, where the mix goes, where recording sessions'
/// input comes from, and which clock paces it.
public struct MixerConfiguration: Sendable, Equatable {
    public var format: AudioFormat
    public var output: AudioOutputChoice
    public var input: AudioInputChoice
    /// The mixer's pace: the host's monotonic clock (`real`), or as fast as the guests render
    /// (`free`), for offline renders to a file that come out the same every time.
    public var freeClock: Bool
    /// Periods to mix before the mixer stops by itself (an offline render of a set length); nil
    /// to mix until the host stops.
    public var periods: UInt64?
    /// Streams at most (sessions that have been active), which bounds the mixer's table.
    public var capacity: Int

    public init(
        format: AudioFormat = .standard, output: AudioOutputChoice = .null, input: AudioInputChoice = .silence,
        freeClock: Bool = false, periods: UInt64? = nil, capacity: Int = 1024
    ) {
        self.format = format
        self.output = output
        self.input = input
        self.freeClock = freeClock
        self.periods = periods
        self.capacity = capacity
    }
}
