import Glibc

/// One sendmsg(2) of `payload` with `descriptors` as SCM_RIGHTS, never raising SIGPIPE: what
/// send(2) returns.
func sendWithDescriptors(_ payload: UnsafeRawBufferPointer, _ descriptors: [Int32], to socket: Int32) -> Int {
    guard !descriptors.isEmpty else {
        return Glibc.send(socket, payload.baseAddress, payload.count, Int32(MSG_NOSIGNAL))
    }
    let rightsLength = descriptors.count * MemoryLayout<Int32>.size
    // CMSG_SPACE, which Swift does not import: the header rounded to the word, then the data.
    let headerLength = (MemoryLayout<cmsghdr>.size + 7) & ~7
    let controlLength = headerLength + ((rightsLength + 7) & ~7)
    let control = UnsafeMutableRawPointer.allocate(byteCount: controlLength, alignment: 8)
    defer { control.deallocate() }
    control.initializeMemory(as: UInt8.self, repeating: 0, count: controlLength)
    let header = control.assumingMemoryBound(to: cmsghdr.self)
    header.pointee.cmsg_level = SOL_SOCKET
    header.pointee.cmsg_type = Int32(SCM_RIGHTS)
    header.pointee.cmsg_len = headerLength + rightsLength
    descriptors.withUnsafeBytes { (control + headerLength).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    var part = iovec(iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count)
    return withUnsafeMutablePointer(to: &part) { part in
        var message = msghdr()
        message.msg_iov = part
        message.msg_iovlen = 1
        message.msg_control = control
        message.msg_controllen = controlLength
        return Glibc.sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
    }
}
