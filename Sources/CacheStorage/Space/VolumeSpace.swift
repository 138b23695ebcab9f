import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The size of the volume holding a path and the room left on it for this user.
struct VolumeSpace: Sendable, Equatable {
    /// Bytes an unprivileged writer may still allocate (`f_bavail`).
    var availableBytes: Int
    /// The volume's size.
    var totalBytes: Int

    /// Asks the file system (`statvfs`); nil when it cannot tell.
    static func of(_ path: String) -> VolumeSpace? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let unit = Int(info.f_frsize > 0 ? info.f_frsize : info.f_bsize)
        let (available, overflowA) = Int(info.f_bavail).multipliedReportingOverflow(by: unit)
        let (total, overflowT) = Int(info.f_blocks).multipliedReportingOverflow(by: unit)
        return VolumeSpace(
            availableBytes: overflowA ? Int.max : available, totalBytes: overflowT ? Int.max : total)
    }
}
