/// Copies a guest-owned C struct that starts with `uint32_t struct_size` into a zeroed struct of
/// this host's layout. Members past what the guest declared stay zero (NULL), so a struct from an
/// older or smaller guest never makes the host read past its end, and its missing callbacks read
/// as "not implemented".
enum SizedStructCopy {
    static func copy<Struct>(_ source: UnsafeRawPointer, as _: Struct.Type, zeroed: Struct) -> Struct {
        let declared = Int(source.load(as: UInt32.self))
        var result = zeroed
        withUnsafeMutableBytes(of: &result) { destination in
            // Whole members only: every member after struct_size is pointer-aligned and
            // pointer-sized, so a size cutting one in half must not copy that half.
            let alignment = MemoryLayout<Struct>.alignment
            let length = min(declared, destination.count) / alignment * alignment
            destination.copyMemory(from: UnsafeRawBufferPointer(start: source, count: length))
        }
        return result
    }
}
