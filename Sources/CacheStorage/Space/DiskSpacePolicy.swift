/// How a store shares its volume with everything else on it.
///
/// The effective byte limit is the smaller of ``StoreConfiguration/byteLimit`` and what the volume
/// can spare: the store's bytes plus the free space above what must stay free (the larger of
/// ``minimumFreeFraction`` of the volume and ``minimumFreeBytes``). So a cache never fills a disk
/// with its own writes; when other files fill it, the cache evicts instead of growing. The free
/// space is asked for at most every ``recheckInterval`` or after a quarter of the last headroom
/// has been written, never once per put.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.diskSpace = DiskSpacePolicy(minimumFreeFraction: 0.10, minimumFreeBytes: 1 << 30)
/// configuration.diskSpace = .byteLimitOnly   // only byteLimit applies
/// ```
public struct DiskSpacePolicy: Sendable, Hashable {
    /// Whether the free space bounds the store at all. `true` by default.
    public var followsFreeSpace: Bool
    /// The fraction of the volume's size that must stay free. 0.02 by default.
    public var minimumFreeFraction: Double
    /// The bytes that must stay free. 64 MiB by default.
    public var minimumFreeBytes: Int
    /// Bytes kept in a reserve file (`DIR/space.reserve`) that the store gives up when the disk is
    /// full so that deletions (which LMDB and SQLite must write to commit) still succeed; recreated
    /// once there is room again. `nil` (the default) means 1/256 of the volume, between 512 KiB and
    /// 8 MiB; 0 turns the reserve off.
    public var deletionReserveBytes: Int?
    /// The longest the store goes without asking for the free space while it writes. 1 s by default.
    public var recheckInterval: Duration

    /// Creates a policy; the defaults keep 2 % of the volume and at least 64 MiB free.
    public init(
        minimumFreeFraction: Double = 0.02, minimumFreeBytes: Int = 64 << 20, deletionReserveBytes: Int? = nil,
        recheckInterval: Duration = .seconds(1)
    ) {
        followsFreeSpace = true
        self.minimumFreeFraction = minimumFreeFraction
        self.minimumFreeBytes = minimumFreeBytes
        self.deletionReserveBytes = deletionReserveBytes
        self.recheckInterval = recheckInterval
    }

    /// The default: 2 % of the volume and at least 64 MiB stay free.
    public static let standard = DiskSpacePolicy()

    /// Only ``StoreConfiguration/byteLimit`` bounds the store (a reserve for deletions is still kept).
    public static let byteLimitOnly: DiskSpacePolicy = {
        var policy = DiskSpacePolicy()
        policy.followsFreeSpace = false
        return policy
    }()

    /// The bytes that must stay free on a volume of `totalBytes`.
    func bytesToKeepFree(volumeBytes totalBytes: Int) -> Int {
        let fraction = Double(totalBytes) * min(max(minimumFreeFraction, 0), 1)
        return max(Int(fraction.rounded(.up)), max(0, minimumFreeBytes))
    }

    /// The reserve file's size on a volume of `totalBytes`.
    func reserveBytes(volumeBytes totalBytes: Int) -> Int {
        if let deletionReserveBytes { return max(0, deletionReserveBytes) }
        return min(8 << 20, max(512 << 10, totalBytes / 256))
    }
}
