import ArgumentParser
import AsyncHTTPClientTransport
import CacheStorage
import Foundation
import Hummingbird
import ImageCache
import ImageCacheMetrics
import ImageCacheService
import ImageProxy
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// Runs the proxy until SIGTERM or SIGINT, then stops taking requests, lets stored thumbnails
/// finish, flushes the store and closes it.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the proxy (the default command).",
        discussion: """
            Every option can also be set by an environment variable (IMAGECACHE_PROXY_ and the option's name in \
            capitals with underscores, e.g. IMAGECACHE_PROXY_PORT=9000); the command line wins.

            Examples:
              # Signed URLs only, from two hosts, cache in the default folder:
              imagecache-proxy --key "$(cat /etc/imagecache/key)" --allow-host images.example.com --allow-host '*.cdn.example.com'
              # Local development: unsigned URLs, sources on this machine allowed, a cache folder of its own:
              imagecache-proxy --allow-unsigned --allow-private-sources --cache-path /tmp/proxy-cache --port 8080
              # Print a signed path, then fetch it:
              curl -s "http://127.0.0.1:8080$(imagecache-proxy sign --key "$KEY" --processing fit:256x256 https://example.com/a.jpg)" -o a.jpg
              # Inspect the running proxy's cache:
              cachectl stats --path ~/.cache/swift-image-cache
            """)

    @Option(help: "Address to listen on.")
    var host = Environment.string("IMAGECACHE_PROXY_HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the chosen port is printed).")
    var port = Environment.int("IMAGECACHE_PROXY_PORT") ?? 8080

    @Option(help: "The cache folder (default: SWIFT_IMAGE_CACHE_PATH, else swift-image-cache in the user's cache directory, where cachectl looks).")
    var cachePath = Environment.string("IMAGECACHE_PROXY_CACHE_PATH") ?? PersistentStore.defaultDirectory.path

    @Option(help: "The cache's size limit in MiB.")
    var cacheSizeMib = Environment.int("IMAGECACHE_PROXY_CACHE_SIZE_MIB") ?? 1024

    @Option(help: "The memory tier's limit in MiB.")
    var memoryMib = Environment.int("IMAGECACHE_PROXY_MEMORY_MIB") ?? 64

    @Option(help: "The URL signing key (or IMAGECACHE_PROXY_KEY; --key-file reads it from a file).")
    var key: String?

    @Option(help: "A file holding the signing key, trailing newline ignored (or IMAGECACHE_PROXY_KEY_FILE).")
    var keyFile: String?

    @Flag(help: "Serve /unsigned/… URLs too (development only: anyone can then make the proxy fetch).")
    var allowUnsigned = Environment.flag("IMAGECACHE_PROXY_ALLOW_UNSIGNED")

    @Option(help: "A source host that may be fetched (exact, or *.example.com); repeat it. None: every host.")
    var allowHost: [String] = Environment.list("IMAGECACHE_PROXY_ALLOW_HOST")

    @Flag(help: "Fetch from loopback, private and link-local addresses too (refused by default).")
    var allowPrivateSources = Environment.flag("IMAGECACHE_PROXY_ALLOW_PRIVATE_SOURCES")

    @Option(help: "Loads (fetch and decode) at once.")
    var maxConcurrentLoads = Environment.int("IMAGECACHE_PROXY_MAX_CONCURRENT_LOADS") ?? 8

    @Option(help: "Loads waiting for a turn before the proxy answers 503 with Retry-After.")
    var queueLimit = Environment.int("IMAGECACHE_PROXY_QUEUE_LIMIT") ?? 64

    @Option(help: "Source fetches at once.")
    var maxConcurrentFetches = Environment.int("IMAGECACHE_PROXY_MAX_CONCURRENT_FETCHES") ?? 16

    @Option(help: "The longest a source fetch may take, in seconds.")
    var fetchDeadline = Environment.double("IMAGECACHE_PROXY_FETCH_DEADLINE") ?? 60

    @Option(help: "The slowest a source body may arrive, in bytes per second (0: no minimum).")
    var minimumTransferRate = Environment.int("IMAGECACHE_PROXY_MINIMUM_TRANSFER_RATE") ?? 1024

    @Option(help: "The window the minimum rate is measured over, in seconds.")
    var transferRateWindow = Environment.double("IMAGECACHE_PROXY_TRANSFER_RATE_WINDOW") ?? 10

    @Option(help: "The largest source body, in MiB.")
    var maxSourceMib = Environment.int("IMAGECACHE_PROXY_MAX_SOURCE_MIB") ?? 50

    @Flag(help: "Serve no /metrics and record nothing.")
    var noMetrics = Environment.flag("IMAGECACHE_PROXY_NO_METRICS")

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = Environment.string("IMAGECACHE_PROXY_LOG_LEVEL") ?? "info"

    func validate() throws {
        guard givenKey != nil || givenKeyFile != nil || allowUnsigned else {
            throw ValidationError("Give a signing key (--key, --key-file or IMAGECACHE_PROXY_KEY), or --allow-unsigned.")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("Unknown log level '\(logLevel)'.") }
        guard maxConcurrentLoads > 0, queueLimit >= 0, maxConcurrentFetches > 0, fetchDeadline > 0 else {
            throw ValidationError("Limits must be positive.")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "imagecache-proxy")
        let registry: PrometheusCollectorRegistry? = noMetrics ? nil : PrometheusCollectorRegistry()
        if let registry { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }

        var storeConfiguration = StoreConfiguration()
        storeConfiguration.byteLimit = cacheSizeMib * 1024 * 1024
        let store = try PersistentStore(directory: URL(fileURLWithPath: cachePath, isDirectory: true), configuration: storeConfiguration)
        let transport = AsyncHTTPClientTransport(maxConnectionsPerHost: maxConcurrentFetches)
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.transport = transport
        configuration.memoryCostLimit = memoryMib * 1024 * 1024
        configuration.memoryCountLimit = 100_000
        // The proxy sends stored thumbnails as they are; their pixels would only crowd the
        // originals, and the decodes new sizes are resampled from, out of memory.
        configuration.keepsProcessedPixels = false
        configuration.maxConcurrentFetches = maxConcurrentFetches
        configuration.maxBodyBytes = maxSourceMib * 1024 * 1024
        configuration.fetchDeadline = .milliseconds(Int64(fetchDeadline * 1000))
        configuration.minimumTransferRate =
            minimumTransferRate > 0
            ? MinimumTransferRate(bytesPerSecond: minimumTransferRate, window: .milliseconds(Int64(transferRateWindow * 1000)))
            : nil
        configuration.logger = logger
        let pipeline = ImagePipeline(configuration: configuration)

        var options = ImageProxy.Options()
        if let secret = try signingKey() { options.signer = URLSigner(key: Data(secret.utf8)) }
        options.allowsUnsigned = allowUnsigned
        options.sources = SourcePolicy(allowedHosts: allowHost, allowsInternalAddresses: allowPrivateSources)
        options.gate = AdmissionGate(capacity: maxConcurrentLoads, queueLimit: queueLimit)
        options.metrics = registry == nil ? nil : ImageCacheMetrics()
        options.logger = logger
        let proxy = ImageProxy(pipeline: pipeline, options: options)

        let storeService = ImagePipelineService(pipeline: pipeline, store: store, logger: logger)
        let host = host
        let application = Application(
            router: ProxyServer.router(proxy: proxy, store: store, registry: registry),
            server: ProxyServer.server(proxy: proxy),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                // One line on standard output that scripts and tests wait for; logs go to standard error.
                FileHandle.standardOutput.write(Data("imagecache-proxy listening on http://\(host):\(port)\n".utf8))
            },
            logger: logger)
        logger.info(
            "starting", metadata: ["cache": "\(cachePath)", "signed": "\(options.signer != nil)", "unsigned": "\(allowUnsigned)"])
        // The store's service comes first: a group stops its services in reverse order, so the
        // server stops taking requests before the store is flushed and closed.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: storeService), .init(service: application), .init(service: ProcessHeap())],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        try? await transport.shutdown()
        logger.info("stopped")
    }

    private var givenKey: String? { key ?? Environment.string("IMAGECACHE_PROXY_KEY") }
    private var givenKeyFile: String? { keyFile ?? Environment.string("IMAGECACHE_PROXY_KEY_FILE") }

    private func signingKey() throws -> String? {
        if let key = givenKey { return key }
        guard let keyFile = givenKeyFile else { return nil }
        let text = try String(contentsOfFile: keyFile, encoding: .utf8)
        return text.trimmingCharacters(in: .newlines)
    }
}
