import NIOCore

/// Splits a byte stream into lines (without "\n" or a trailing "\r"): the control protocol's frames.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Longer lines are an error, so that a peer cannot make the other side buffer without bound.
    let maximumLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximumLength { throw LineTooLongError(maximumLength: maximumLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximumLength else { throw LineTooLongError(maximumLength: maximumLength) }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line = line.getSlice(at: line.readerIndex, length: length - 1)!
        }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    /// A last line without its newline still counts when the peer closes.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .needMoreData
    }
}

struct LineTooLongError: Error, CustomStringConvertible {
    let maximumLength: Int
    var description: String { "line longer than \(maximumLength) bytes" }
}
