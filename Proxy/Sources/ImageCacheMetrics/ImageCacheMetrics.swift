import CacheStorage
import Foundation
import ImageCache
import Metrics

/// What the pipeline and its store know about their work, reported through swift-metrics: loads
/// by the tier that answered, failures by cause, load latency, and the store's contents, hits,
/// misses and storage failures.
///
/// Nothing is recorded unless you make one and call it: a pipeline without an `ImageCacheMetrics`
/// pays nothing. Bootstrap a metrics backend (`MetricsSystem.bootstrap`) first, then measure
/// loads and report the store now and then (on each scrape, say):
///
/// ```swift
/// let metrics = ImageCacheMetrics()
/// let response = try await metrics.measure { try await pipeline.image(for: request) }
/// metrics.report(store: store, pipeline: pipeline)
/// ```
///
/// Names, all prefixed with ``prefix`` (`imagecache` by default):
/// - `_loads_total{source}`: loads answered, by `ImageSource` (memory, disk, network, revalidated, stale);
/// - `_load_failures_total{reason}`: loads that failed, by cause (invalid_image, http_status,
///   network, fetch_bound, body_too_large, not_cached, storage, decoding, cancelled);
/// - `_load_duration_seconds{outcome}`: a timer of load latency (hit or miss: answered from memory or disk, or not);
/// - `_store_entries`, `_store_bytes`, `_store_derived_bytes`, `_store_effective_byte_limit`: gauges;
/// - `_store_hits_total`, `_store_misses_total`: the store's own lookups;
/// - `_storage_failures_total{cause}`: writes the disk refused (disk_full, read_only, refused, other), and
///   writes dropped because too many waited for the disk (queue_full).
public final class ImageCacheMetrics: Sendable {
    /// The prefix of every metric's name.
    public let prefix: String
    private let loads: [ImageSource: Counter]
    private let failures: [String: Counter]
    private let hitDuration: Timer
    private let missDuration: Timer
    private let failedDuration: Timer
    private let storeEntries: Gauge
    private let storeBytes: Gauge
    private let storeDerivedBytes: Gauge
    private let storeLimit: Gauge
    private let storeHits: Counter
    private let storeMisses: Counter
    private let storageFailures: [String: Counter]
    private let reported = ReportedTotals()

    /// The causes a failed load is counted under.
    public static let failureReasons = [
        "invalid_image", "http_status", "network", "fetch_bound", "body_too_large", "not_cached", "storage", "decoding",
        "cancelled",
    ]

    /// Metrics named `prefix_…` (`imagecache` by default), made by the bootstrapped backend.
    public init(prefix: String = "imagecache") {
        self.prefix = prefix
        let sources: [ImageSource] = [.memory, .disk, .network, .revalidated, .stale]
        loads = Dictionary(
            uniqueKeysWithValues: sources.map { ($0, Counter(label: "\(prefix)_loads_total", dimensions: [("source", $0.rawValue)])) })
        failures = Dictionary(
            uniqueKeysWithValues: Self.failureReasons.map {
                ($0, Counter(label: "\(prefix)_load_failures_total", dimensions: [("reason", $0)]))
            })
        hitDuration = Timer(label: "\(prefix)_load_duration_seconds", dimensions: [("outcome", "hit")], preferredDisplayUnit: .seconds)
        missDuration = Timer(label: "\(prefix)_load_duration_seconds", dimensions: [("outcome", "miss")], preferredDisplayUnit: .seconds)
        failedDuration = Timer(label: "\(prefix)_load_duration_seconds", dimensions: [("outcome", "failure")], preferredDisplayUnit: .seconds)
        storeEntries = Gauge(label: "\(prefix)_store_entries")
        storeBytes = Gauge(label: "\(prefix)_store_bytes")
        storeDerivedBytes = Gauge(label: "\(prefix)_store_derived_bytes")
        storeLimit = Gauge(label: "\(prefix)_store_effective_byte_limit")
        storeHits = Counter(label: "\(prefix)_store_hits_total")
        storeMisses = Counter(label: "\(prefix)_store_misses_total")
        storageFailures = Dictionary(
            uniqueKeysWithValues: ["disk_full", "read_only", "refused", "other", "queue_full"].map {
                ($0, Counter(label: "\(prefix)_storage_failures_total", dimensions: [("cause", $0)]))
            })
    }

    /// Runs `load`, counting its answer by source or its failure by cause, and timing it.
    public func measure(_ load: () async throws(ImageLoadError) -> ImageResponse) async throws(ImageLoadError) -> ImageResponse {
        let started = ContinuousClock.now
        do {
            let response = try await load()
            record(response, duration: ContinuousClock.now - started)
            return response
        } catch {
            record(error, duration: ContinuousClock.now - started)
            throw error
        }
    }

    /// Counts one answered load and its latency.
    public func record(_ response: ImageResponse, duration: Duration) {
        loads[response.source]?.increment()
        let isHit = response.source == .memory || response.source == .disk
        (isHit ? hitDuration : missDuration).recordNanoseconds(duration.nanoseconds)
    }

    /// Counts one failed load and its latency.
    public func record(_ error: ImageLoadError, duration: Duration) {
        failures[Self.reason(error)]?.increment()
        failedDuration.recordNanoseconds(duration.nanoseconds)
    }

    /// The cause a failure is counted under (one of ``failureReasons``).
    public static func reason(_ error: ImageLoadError) -> String {
        switch error {
        case .invalidImage: "invalid_image"
        case .httpStatus: "http_status"
        case let .network(failure): failure.underlying is FetchBoundExceeded ? "fetch_bound" : "network"
        case .bodyTooLarge: "body_too_large"
        case .notCached: "not_cached"
        case .storage: "storage"
        case .decodingFailed: "decoding"
        case .cancelled: "cancelled"
        }
    }

    /// Sets the store's gauges and advances its counters to what `store` and `pipeline` report
    /// now. Reads the store's statistics (a few index queries): call it per scrape, not per load.
    public func report(store: PersistentStore?, pipeline: ImagePipeline) {
        var totals = ReportedTotals.Values()
        if let store, let statistics = try? store.statistics() {
            storeEntries.record(statistics.entries)
            storeBytes.record(statistics.bytes)
            storeDerivedBytes.record(statistics.derivedBytes)
            storeLimit.record(statistics.effectiveByteLimit)
            totals.hits = statistics.hits
            totals.misses = statistics.misses
        }
        let failures = pipeline.storageFailures
        totals.failures = [
            "disk_full": failures.diskFull, "read_only": failures.readOnly, "refused": failures.refused, "other": failures.other,
            "queue_full": failures.queueFull,
        ]
        let increments = reported.advance(to: totals)
        if increments.hits > 0 { storeHits.increment(by: increments.hits) }
        if increments.misses > 0 { storeMisses.increment(by: increments.misses) }
        for (cause, count) in increments.failures where count > 0 { storageFailures[cause]?.increment(by: count) }
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
