import Foundation
import Logging

/// What a store knows about the room it has: the volume's free space (asked for now and then,
/// never once per put), the effective byte limit that follows from it, whether writes are
/// paused because the disk filled, and the space reserve given up when it does.
///
/// Used from the writer thread and read by `statistics()`; its state sits behind one lock.
final class SpaceMonitor: Sendable {
    private struct State {
        var volume: VolumeSpace?
        var checkedAt: ContinuousClock.Instant?
        var writtenSinceCheck = 0
        /// The lack of space that paused writes, while they are paused.
        var paused: StorageError?
        /// Failure kinds already logged, so a full disk logs once, not once per batch.
        var logged: Set<String> = []
        /// Set after each batch when the volume's free space, not the byte limit, binds the store.
        var isTight = false
        /// When the reserve was last allocated again, or tried to be.
        var lastReserveAttempt: ContinuousClock.Instant?
    }

    private let directory: URL
    let policy: DiskSpacePolicy
    /// The blocks given up so that deletions commit on a full disk.
    let reserve: SpaceReserve
    private let logger: Logger
    private let state = Locked(State())

    init(directory: URL, policy: DiskSpacePolicy, reserve: SpaceReserve, logger: Logger) {
        self.directory = directory
        self.policy = policy
        self.reserve = reserve
        self.logger = logger
    }

    /// The volume's space, asked for again when the last answer is older than the policy's
    /// interval or a quarter of the headroom it showed has been written since.
    func volume(forceCheck: Bool = false) -> VolumeSpace? {
        let now = ContinuousClock.now
        let cached: VolumeSpace? = state.withLock { state in
            guard !forceCheck, let volume = state.volume, let checkedAt = state.checkedAt,
                now - checkedAt < policy.recheckInterval,
                state.writtenSinceCheck < max(1 << 20, volume.availableBytes / 4)
            else { return nil }
            return volume
        }
        if let cached { return cached }
        let fresh = VolumeSpace.of(directory.path)
        state.withLock { state in
            state.volume = fresh
            state.checkedAt = now
            state.writtenSinceCheck = 0
        }
        return fresh
    }

    /// The most a write of `payloadBytes` may add to the store's files: LMDB rounds each blob up
    /// to whole pages and copies the pages a transaction changes, and the index's log grows beside it.
    static func growthEstimate(forPayload payloadBytes: Int) -> Int {
        payloadBytes + payloadBytes / 8 + (256 << 10)
    }

    /// Room kept for the index's log when LMDB's file is held (the log is checkpointed short
    /// while the free space binds).
    static let indexLogAllowance = 512 << 10

    /// The size LMDB's data file, now `fileBytes` (asked only near the floor), may grow to: that plus the volume's free space
    /// above what the policy keeps free, less room for the index's log. Nil (no hold) when the
    /// policy does not follow free space, the volume cannot tell, or the volume has room for
    /// `growth` several times over (judged from the last answer, which is at most a quarter of its
    /// headroom old; near the floor the volume is asked again).
    func fileCeiling(fileBytes: () -> Int, growth: Int) -> Int? {
        guard policy.followsFreeSpace, let known = volume() else { return nil }
        if growth * 4 <= known.availableBytes - policy.bytesToKeepFree(volumeBytes: known.totalBytes) { return nil }
        guard let fresh = volume(forceCheck: true) else { return nil }
        let spare = fresh.availableBytes - policy.bytesToKeepFree(volumeBytes: fresh.totalBytes) - Self.indexLogAllowance
        return fileBytes() + max(0, spare)
    }

    func noteWritten(bytes: Int) {
        state.withLock { $0.writtenSinceCheck += bytes }
    }

    /// The byte limit in force (see ``DiskSpacePolicy/effectiveByteLimit(configuredLimit:storeBytes:reusableBytes:volumeBytes:availableBytes:)``).
    func effectiveLimit(configuredLimit: Int, storeBytes: Int, reusableBytes: Int = 0) -> ByteLimit {
        guard policy.followsFreeSpace, let volume = volume() else {
            return ByteLimit(bytes: configuredLimit, boundByFreeSpace: false)
        }
        let limit = policy.effectiveByteLimit(
            configuredLimit: configuredLimit, storeBytes: storeBytes, reusableBytes: reusableBytes,
            volumeBytes: volume.totalBytes, availableBytes: volume.availableBytes)
        return ByteLimit(bytes: limit, boundByFreeSpace: limit < configuredLimit)
    }

    /// Whether the volume's free space, not the byte limit, bound the store when a batch last
    /// checked: the index's write-ahead log is then checkpointed and truncated early, since it
    /// takes volume space too.
    var isTight: Bool {
        get { state.withLock { $0.isTight } }
        set { state.withLock { $0.isTight = newValue } }
    }

    // MARK: The reserve

    /// Runs a write that frees space; when it fails for lack of space, gives up the space reserve
    /// and runs it once more (LMDB copies the pages a deletion changes, so even that needs room).
    func freeingSpace<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as StorageError where error.isOutOfSpace && reserve.release() {
            warnOnce("reserve", "The disk is full: released the space reserve so that deletions commit", error: error)
            return try body()
        }
    }

    /// Allocates the space reserve again once the volume has room for it and more; tried at most
    /// once per recheck interval while it is missing, and on close (`force`).
    func replenishReserveIfDue(force: Bool = false) {
        guard pausedError == nil, let volume = volume() else { return }
        let bytes = policy.reserveBytes(volumeBytes: volume.totalBytes)
        guard bytes > 0 else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state in
            if !force, let last = state.lastReserveAttempt, now - last < policy.recheckInterval { return false }
            state.lastReserveAttempt = now
            return true
        }
        guard due else { return }
        reserve.replenish(to: bytes, keepingFree: max(bytes, 1 << 20))
    }

    // MARK: Pausing writes

    /// The error writes fail with while they are paused, or nil when they may be tried.
    var pausedError: StorageError? { state.withLock { $0.paused } }

    /// Whether a write of `bytes` may be tried now: always while writes are not paused; while they
    /// are, only once the volume's free space plus what LMDB can reuse inside its file covers it.
    func mayTryWrite(bytes: Int, reusableBytes: () -> Int) -> StorageError? {
        guard let paused = pausedError else { return nil }
        let needed = Self.growthEstimate(forPayload: bytes)
        let available = volume(forceCheck: true)?.availableBytes ?? 0
        if available >= needed || available + reusableBytes() >= needed { return nil }
        return paused
    }

    /// Pauses writes after `error` (a lack of space), logging the first time.
    func pause(_ error: StorageError) {
        let first = state.withLock { state in
            defer { state.paused = error }
            return state.paused == nil
        }
        if first {
            logger.warning(
                "The disk is full: cache writes are paused until space is freed; reads go on",
                metadata: ["error": "\(error)"])
        }
    }

    /// Resumes writes after one succeeded or space was freed.
    func resume() {
        let wasPaused = state.withLock { state in
            defer { state.paused = nil }
            return state.paused != nil
        }
        if wasPaused {
            state.withLock { _ = $0.logged.remove("paused") }
            logger.notice("Disk space is available again: cache writes resumed")
        }
    }

    /// Logs `message` once per `kind` until writes resume (repeated failures of one cause stay quiet).
    func warnOnce(_ kind: String, _ message: Logger.Message, error: any Error) {
        let first = state.withLock { $0.logged.insert(kind).inserted }
        if first { logger.warning(message, metadata: ["error": "\(error)"]) }
    }

    func clearWarnings() {
        state.withLock { $0.logged.removeAll() }
    }
}

/// A byte limit and where it came from.
struct ByteLimit: Sendable, Equatable {
    var bytes: Int
    /// True when the volume's free space, not the configured limit, set it.
    var boundByFreeSpace: Bool
}
