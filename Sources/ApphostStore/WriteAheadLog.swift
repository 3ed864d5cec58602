import ApphostVocabulary
import Foundation

/// What SQLite's recovery will make of a write-ahead log, read before SQLite opens it
/// (https://sqlite.org/fileformat2.html#walformat). SQLite keeps the frames up to the first one
/// that is not intact, as far as the last commit among them, and drops the rest without a word,
/// committed transactions included; then it overwrites the log. This says whether committed
/// transactions are about to be dropped, and how many, while the log is still there to copy.
enum WriteAheadLog {
    enum Examination: Equatable {
        /// Nothing committed is dropped: every frame of the log's current generation is intact,
        /// but for those of a transaction that never committed.
        case intact
        /// The log's header is not intact, so SQLite ignores the whole log: `frames` frames
        /// follow it, and `transactions` of them end a transaction (nil when the header is too
        /// damaged to tell which frames belong to it).
        case damagedHeader(bytes: Int, frames: Int, transactions: Int?)
        /// Frame `frame` (from 1) is not intact: SQLite keeps the `kept` transactions before it
        /// and drops `lost` committed transactions written after them (`lostFrames` frames).
        case damagedFrame(frame: Int, kept: Int, lost: Int, lostFrames: Int)
    }

    static let headerSize = 32
    static let frameHeaderSize = 24
    private static let magic: UInt32 = 0x377f_0682
    private static let version: UInt32 = 3_007_000

    /// Reads the log at `path`; `pageSize` is the database's, for a log whose header is damaged.
    static func examine(path: String, pageSize: Int) throws(StoreError) -> Examination {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw StoreError("cannot read \(path)")
        }
        return examine([UInt8](bytes), pageSize: pageSize)
    }

    static func examine(_ log: [UInt8], pageSize databasePageSize: Int) -> Examination {
        guard log.count >= headerSize else { return .intact }
        let magic = word(log, 0)
        let bigEndian = magic & 1 == 1
        let headerPageSize = Int(word(log, 8))
        let salts = (word(log, 16), word(log, 20))
        let headerSum = checksum(log, 0..<24, bigEndian: bigEndian, seed: (0, 0))
        let pageSizeIsValid =
            headerPageSize >= 512 && headerPageSize <= 65536 && headerPageSize & (headerPageSize - 1) == 0
        let headerIsIntact =
            magic & ~1 == Self.magic && word(log, 4) == version && pageSizeIsValid
            && headerSum == (word(log, 24), word(log, 28))
        guard headerIsIntact else {
            // Which frames were this log's, and where they end, only an intact magic number
            // and page size can tell.
            let trusted = magic & ~1 == Self.magic && pageSizeIsValid
            let frameSize = frameHeaderSize + (trusted ? headerPageSize : databasePageSize)
            let frames = (log.count - headerSize) / frameSize
            guard frames > 0 else { return .intact }
            let commits = (0..<frames).filter { index in
                let offset = headerSize + index * frameSize
                return (word(log, offset + 8), word(log, offset + 12)) == salts && word(log, offset + 4) != 0
            }.count
            return .damagedHeader(bytes: log.count, frames: frames, transactions: trusted ? commits : nil)
        }

        let frameSize = frameHeaderSize + headerPageSize
        var sum = headerSum
        var intact = 0
        var commits = 0
        var lastCommit = 0
        var offset = headerSize
        while offset + frameSize <= log.count {
            let frameSum = checksum(
                log, (offset + frameHeaderSize)..<(offset + frameSize), bigEndian: bigEndian,
                seed: checksum(log, offset..<(offset + 8), bigEndian: bigEndian, seed: sum))
            guard word(log, offset) != 0, (word(log, offset + 8), word(log, offset + 12)) == salts,
                frameSum == (word(log, offset + 16), word(log, offset + 20))
            else { break }
            sum = frameSum
            intact += 1
            if word(log, offset + 4) != 0 {
                commits += 1
                lastCommit = intact
            }
            offset += frameSize
        }
        // Frames left over from the log's earlier generations carry other salts: not this one's.
        // A frame whose salts were damaged is this generation's still when its checksum follows
        // on from the frame before it (the salts are outside the checksum), as far as this
        // generation's frames run on unbroken; SQLite drops it, and all after it, too.
        //
        // The first frame that is not intact may be the last one written, cut short by a kill
        // (SQLite writes a frame's header, then its page): then its transaction never committed,
        // and nothing was lost. Only a frame of this generation written after it proves it was
        // whole once, and so its commit, if it is one, lost since.
        let damaged = offset
        var damagedCommit = 0
        var framesAfterDamaged = 0
        var lost = 0
        var lostFrames = intact - lastCommit
        var previousSum: (UInt32, UInt32)? = sum
        while offset + frameSize <= log.count {
            let storedSum = (word(log, offset + 16), word(log, offset + 20))
            let followsOn =
                previousSum.map { seed in
                    checksum(
                        log, (offset + frameHeaderSize)..<(offset + frameSize), bigEndian: bigEndian,
                        seed: checksum(log, offset..<(offset + 8), bigEndian: bigEndian, seed: seed)) == storedSum
                } ?? false
            if followsOn || (word(log, offset + 8), word(log, offset + 12)) == salts {
                lostFrames += 1
                if offset != damaged { framesAfterDamaged += 1 }
                if word(log, offset + 4) != 0 {
                    if offset == damaged { damagedCommit = 1 } else { lost += 1 }
                }
                previousSum = previousSum.map { _ in storedSum }
            } else {
                previousSum = nil
            }
            offset += frameSize
        }
        if framesAfterDamaged > 0 { lost += damagedCommit }
        guard lost > 0 else { return .intact }
        return .damagedFrame(frame: intact + 1, kept: commits, lost: lost, lostFrames: lostFrames)
    }

    /// A big-endian 32-bit integer, as the log's header fields are.
    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// SQLite's checksum of the log: over 32-bit words, two at a time, in the byte order the
    /// magic number's low bit names.
    private static func checksum(
        _ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool, seed: (UInt32, UInt32)
    ) -> (UInt32, UInt32) {
        var (s1, s2) = seed
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let first = word(bytes, offset)
            let second = word(bytes, offset + 4)
            s1 = s1 &+ (bigEndian ? first : first.byteSwapped) &+ s2
            s2 = s2 &+ (bigEndian ? second : second.byteSwapped) &+ s1
            offset += 8
        }
        return (s1, s2)
    }
}
