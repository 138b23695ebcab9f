/// How a store shares its volume with everything else on it.
///
/// The effective byte limit is the smaller of ``StoreConfiguration/byteLimit`` and what the volume
/// can spare: the store's bytes (and free pages inside its files) plus the free space above what
/// must stay free (the larger of ``minimumFreeFraction`` of the volume and ``minimumFreeBytes``,
/// the latter at most a tenth of the volume). So a cache never fills a disk
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

    /// Creates a policy; the defaults keep 2 % of the volume free, and at least 64 MiB (or a tenth
    /// of a volume smaller than 640 MiB).
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

    /// The default: 2 % of the volume and at least 64 MiB (a tenth of a small volume) stay free.
    public static let standard = DiskSpacePolicy()

    /// Only ``StoreConfiguration/byteLimit`` bounds the store (a reserve for deletions is still kept).
    public static let byteLimitOnly: DiskSpacePolicy = {
        var policy = DiskSpacePolicy()
        policy.followsFreeSpace = false
        return policy
    }()

    /// The byte limit in force for a store holding `storeBytes` (plus `reusableBytes` of free
    /// pages inside its files) with `configuredLimit` set, on a volume of `volumeBytes` with
    /// `availableBytes` free.
    ///
    /// What the store holds and can reuse inside its files, plus the volume's free space above what
    /// must stay free; when the volume has less than that free, the shortfall comes off. Evicting
    /// does not shrink LMDB's file, it frees pages that later writes reuse, so once the shortfall
    /// has been evicted the limit holds still and new images replace old ones inside the files
    /// instead of growing them.
    public func effectiveByteLimit(
        configuredLimit: Int, storeBytes: Int, reusableBytes: Int = 0, volumeBytes: Int, availableBytes: Int
    ) -> Int {
        guard followsFreeSpace else { return configuredLimit }
        let headroom = availableBytes - bytesToKeepFree(volumeBytes: volumeBytes)
        let (held, overflow) = storeBytes.addingReportingOverflow(reusableBytes)
        let (allowed, overflow2) = (overflow ? Int.max : held).addingReportingOverflow(headroom)
        return min(configuredLimit, max(0, overflow2 ? (headroom > 0 ? Int.max : 0) : allowed))
    }

    /// The bytes that must stay free on a volume of `totalBytes`: ``minimumFreeFraction`` of it,
    /// or ``minimumFreeBytes`` when that is more, but never more than a tenth of the volume for the
    /// byte minimum (so a small volume still holds a cache).
    public func bytesToKeepFree(volumeBytes totalBytes: Int) -> Int {
        let fraction = Double(totalBytes) * min(max(minimumFreeFraction, 0), 1)
        return max(Int(fraction.rounded(.up)), min(max(0, minimumFreeBytes), totalBytes / 10))
    }

    /// The reserve file's size on a volume of `totalBytes`.
    func reserveBytes(volumeBytes totalBytes: Int) -> Int {
        if let deletionReserveBytes { return max(0, deletionReserveBytes) }
        return min(8 << 20, max(512 << 10, totalBytes / 256))
    }
}
