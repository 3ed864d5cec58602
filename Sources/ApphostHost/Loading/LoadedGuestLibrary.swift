import CApphost
import Foundation

/// A dlopened guest library whose entry and descriptor passed validation.
final class LoadedGuestLibrary: @unchecked Sendable {
    // Immutable but for `handle`, which only the library's single owner closes: the loader until
    // it hands the library to a runtime, then that runtime on its guest's main queue.
    let path: String
    /// The resolved path that dlopen was given: the library's identity in this process.
    let canonicalPath: String
    let entry: apphost_entry_t
    let descriptor: GuestDescriptor
    private var handle: UnsafeMutableRawPointer?

    init(
        path: String, canonicalPath: String, handle: UnsafeMutableRawPointer, entry: apphost_entry_t,
        descriptor: GuestDescriptor
    ) {
        self.path = path
        self.canonicalPath = canonicalPath
        self.handle = handle
        self.entry = entry
        self.descriptor = descriptor
    }

    /// dlcloses the library once; the entry's pointers are dangling afterwards.
    func close() {
        guard let handle else { return }
        self.handle = nil
        dlclose(handle)
    }
}
