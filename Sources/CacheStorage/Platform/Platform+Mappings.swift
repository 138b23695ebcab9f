import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// The address ranges where this process maps the file open at `descriptor`, from
    /// `/proc/self/maps` (matched by the file's device and inode); none where the platform has no
    /// such list. For a library that maps a file without saying where: LMDB reports its map's
    /// address only for a fixed map.
    static func mappedRanges(ofFileOpenAt descriptor: Int32) -> [UnsafeMutableRawBufferPointer] {
        #if os(Linux)
        var status = stat()
        guard fstat(descriptor, &status) == 0, let listing = readWholeFile("/proc/self/maps") else { return [] }
        let device = (major: UInt64(status.st_dev >> 8 & 0xfff) | UInt64(status.st_dev >> 32 & ~0xfff),
                      minor: UInt64(status.st_dev & 0xff) | UInt64(status.st_dev >> 12 & ~0xff))
        var ranges: [UnsafeMutableRawBufferPointer] = []
        for line in listing.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset major:minor inode path
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, UInt64(ascii: fields[4], radix: 10) == UInt64(status.st_ino) else { continue }
            let deviceParts = fields[3].split(separator: UInt8(ascii: ":"))
            let addresses = fields[0].split(separator: UInt8(ascii: "-"))
            guard deviceParts.count == 2, addresses.count == 2,
                UInt64(ascii: deviceParts[0], radix: 16) == device.major, UInt64(ascii: deviceParts[1], radix: 16) == device.minor,
                let start = UInt(exactly: UInt64(ascii: addresses[0], radix: 16) ?? 0),
                let end = UInt(exactly: UInt64(ascii: addresses[1], radix: 16) ?? 0), end > start,
                let base = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            ranges.append(UnsafeMutableRawBufferPointer(start: base, count: Int(end - start)))
        }
        return ranges
        #else
        return []
        #endif
    }

    #if os(Linux)
    /// A file's whole contents read to its end (procfs files report no size).
    private static func readWholeFile(_ path: String) -> [UInt8]? {
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
    #endif
}

extension UInt64 {
    /// The number `digits` spell in `radix`, as ASCII bytes; nil when they spell none.
    fileprivate init?(ascii digits: some Collection<UInt8>, radix: Int) {
        guard let value = UInt64(String(decoding: digits, as: UTF8.self), radix: radix) else { return nil }
        self = value
    }
}
