import ApphostVocabulary
import Glibc

/// A session region's two descriptors as a stream hands them to a guest's runtime: copies of the
/// mixer's own (which the engine keeps with the region), closed when the stream goes, once the
/// channel has sent or duplicated them.
final class RegionStream: AudioStream {
    let memoryDescriptor: Int32
    let wakeDescriptor: Int32

    init(memoryDescriptor: Int32, wakeDescriptor: Int32) {
        self.memoryDescriptor = memoryDescriptor
        self.wakeDescriptor = wakeDescriptor
    }

    deinit {
        close(memoryDescriptor)
        close(wakeDescriptor)
    }
}
