import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// Asks the kernel to start reading the first `bytes` of the file open at `descriptor`, and
    /// returns at once. Only a hint; nothing where the platform has none.
    package static func adviseWillNeed(_ descriptor: Int32, bytes: Int) {
        #if os(Linux)
        _ = posix_fadvise(descriptor, 0, off_t(bytes), POSIX_FADV_WILLNEED)
        #elseif canImport(Darwin)
        var advice = radvisory(ra_offset: 0, ra_count: Int32(clamping: bytes))
        _ = fcntl(descriptor, F_RDADVISE, &advice)
        #endif
    }

    /// Syncs the file open at `descriptor` and drops its pages from the page cache, so the next
    /// read goes to the disk. Returns false where the platform cannot drop them.
    package static func dropCachedPages(_ descriptor: Int32) -> Bool {
        #if os(Linux)
        // DONTNEED drops clean pages only, hence the sync first.
        fdatasync(descriptor)
        return posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0
        #else
        return false
        #endif
    }

    /// Allocates the first `bytes` of the file open at `descriptor` on the disk. Returns whether
    /// they are all allocated; a caller truncates a partial allocation.
    package static func preallocate(_ descriptor: Int32, bytes: Int) -> Bool {
        #if os(Linux)
        return posix_fallocate(descriptor, 0, off_t(bytes)) == 0
        #else
        // No posix_fallocate: write the bytes, which allocates them as surely.
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        var offset = 0
        while offset < bytes {
            let count = min(chunk.count, bytes - offset)
            let written = chunk.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count, off_t(offset)) }
            guard written == count else { return false }
            offset += count
        }
        return fsync(descriptor) == 0
        #endif
    }

    /// Whether the file system holding `path` is mounted read-only (false when it cannot tell).
    package static func isReadOnlyMount(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Sets the mode of what stands at `path`, never following a link at its last component:
    /// `wanted` sees the file's status and returns the mode to give it, or nil to leave it.
    ///
    /// On Linux the file is named by an `O_PATH` descriptor, which neither opens a FIFO nor, when
    /// closed, drops the `fcntl` locks LMDB and SQLite hold on their files in this process
    /// (closing any ordinary descriptor of a file does); the status is the descriptor's and the
    /// mode is set through its `/proc/self/fd` name, which reaches the very file. Elsewhere the
    /// status is `lstat`'s and the mode is set by name without following a link: at worst a link
    /// swapped in since has its own mode changed.
    package static func setMode(at path: String, wanted: (stat) -> mode_t?) {
        var info = stat()
        #if os(Linux)
        let descriptor = open(path, pathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0, let mode = wanted(info) else { return }
        // `fchmod` refuses an O_PATH descriptor.
        chmod("/proc/self/fd/\(descriptor)", mode)
        #else
        guard lstat(path, &info) == 0, let mode = wanted(info) else { return }
        fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW)
        #endif
    }

    #if os(Linux)
    /// Linux's `O_PATH`, which Glibc's module does not export (it needs `_GNU_SOURCE`); this value
    /// holds on every architecture Swift runs on.
    private static let pathOnly: Int32 = 0o10_000_000
    #endif
}
