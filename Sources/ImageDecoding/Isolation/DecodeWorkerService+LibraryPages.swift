#if os(Linux) && canImport(CVips)
import Foundation
import Glibc

extension DecodeWorkerService {
    /// Drops from the worker's resident memory the pages of its libraries and executable that
    /// loading them touched, once libvips has started: Debian's libvips links a hundred and more
    /// libraries (PDF, OpenEXR, HEVC, ImageMagick…), each relocated and initialised as the worker
    /// starts, and most never run for the formats a worker decodes. Only mappings nothing can
    /// have changed are dropped (not writable, private, and without a page of their own in
    /// anonymous memory, as a relocated page would be): their pages are the files' own, which stay
    /// in the page cache, so code a decode does run faults back in without the disk.
    static func dropLoadedLibraryPages() {
        guard let smaps = wholeFile("/proc/self/smaps") else { return }
        var candidate: UnsafeMutableRawBufferPointer?
        var anonymous = 0
        func drop() {
            if let range = candidate, anonymous == 0 { _ = madvise(range.baseAddress, range.count, MADV_DONTNEED) }
            candidate = nil
        }
        for line in smaps.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.last == UInt8(ascii: ":") {
                if String(decoding: first, as: UTF8.self) == "Anonymous:", fields.count >= 2 {
                    anonymous = Int(String(decoding: fields[1], as: UTF8.self)) ?? 1
                }
                continue
            }
            // A mapping's header: start-end perms offset device inode path.
            drop()
            anonymous = 0
            guard fields.count == 6 else { continue }
            let permissions = Array(fields[1])
            let path = fields[5].drop { $0 == UInt8(ascii: " ") }
            let addresses = fields[0].split(separator: UInt8(ascii: "-")).map { UInt(String(decoding: $0, as: UTF8.self), radix: 16) }
            guard permissions.count == 4, permissions[1] != UInt8(ascii: "w"), permissions[3] == UInt8(ascii: "p"),
                path.first == UInt8(ascii: "/"), addresses.count == 2, let start = addresses[0], let end = addresses[1], end > start,
                let base = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            candidate = UnsafeMutableRawBufferPointer(start: base, count: Int(end - start))
        }
        drop()
    }

    /// A file's contents read to its end: a procfs file reports no size, and is read in turns.
    private static func wholeFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return contents }
            contents += chunk[0..<count]
        }
    }
}
#endif
