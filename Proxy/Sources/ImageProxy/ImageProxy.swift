import Foundation
import ImageCache
import ImageFormats
import ImageCacheMetrics
import Logging

/// The proxy's decisions, free of the HTTP server: a request path and its conditional and
/// `Accept` headers in, a ``ProxyAnswer`` out.
///
/// In order: the path is parsed (400), its signature checked (403), an answer from memory is
/// taken at once if there is one; otherwise the source's host and addresses are checked (403),
/// the request waits its turn at the ``AdmissionGate`` (503 with `Retry-After` past its queue),
/// and the pipeline loads it under the `persistent` policy: RFC 9111 caching of the source with
/// 304 revalidation, thumbnails kept on disk as variants of their original.
///
/// Answers carry `Cache-Control` with the source's remaining freshness (`no-store` and `private`
/// passed on), a strong `ETag` of the bytes sent, and a 304 to a matching `If-None-Match`.
public final class ImageProxy: Sendable {
    /// What the proxy needs besides its pipeline.
    public struct Options: Sendable {
        /// Checks signatures; nil when only unsigned URLs are served.
        public var signer: URLSigner?
        /// Whether `/unsigned/…` URLs are served. False by default.
        public var allowsUnsigned = false
        /// Which sources may be fetched.
        public var sources = SourcePolicy()
        /// Loads and decodes at once, and how many may wait.
        public var gate = AdmissionGate(capacity: 8, queueLimit: 64)
        /// The `Retry-After` seconds of a 503. 1 by default.
        public var retryAfterSeconds = 1
        /// Load metrics; nil records none.
        public var metrics: ImageCacheMetrics?
        /// Where requests that failed are logged.
        public var logger = Logger(label: "imagecache-proxy")

        /// The defaults: nothing is served until a signer is set or unsigned URLs are allowed.
        public init() {}
    }

    /// The pipeline images are loaded through.
    public let pipeline: ImagePipeline
    /// The options it runs with.
    public let options: Options
    /// Paths already parsed and checked (a signature is checked once per path), up to 1 MiB of paths:
    /// enough for the requests in flight, each checked when it is read and again when it is answered.
    private let checkedPaths = Memo<String, Result<CheckedPath, ProxyRequestError>>(costLimit: 1 << 20)
    /// Answers prepared per path and `Accept` from responses the memory tier hands out, reused while
    /// it hands out the same one. A remembered response keeps its bytes and pixels alive after the
    /// memory tier lets them go, so what it holds is bounded too: 16 MiB.
    private let prepared = Memo<AnswerKey, PreparedAnswer>(costLimit: 16 << 20)

    /// What an answer is prepared for: the request's path as it came (a path that was answered
    /// passed its checks), and its `Accept`.
    private struct AnswerKey: Hashable, Sendable {
        let path: String
        let accept: String?
    }

    /// A proxy over `pipeline`, best configured with `keepsProcessedPixels` false: the proxy sends
    /// stored thumbnails' bytes and never their pixels.
    public init(pipeline: ImagePipeline, options: Options) {
        self.pipeline = pipeline
        self.options = options
    }

    /// The answer to `GET path`.
    public func answer(path: Substring, accept: String?, ifNoneMatch: String?) async -> ProxyAnswer {
        let path = String(path)
        if let ready = answerAtOnce(path: path, accept: accept, ifNoneMatch: ifNoneMatch) { return ready }
        let checked: CheckedPath
        switch check(path) {
        case let .success(found): checked = found
        case let .failure(error): return .error(error.status, error.description)
        }
        let parsed = checked.path
        let request = checked.request(accepting: accept)
        let started = ContinuousClock.now
        if let hit = pipeline.cachedImage(for: request) {
            options.metrics?.record(hit, duration: ContinuousClock.now - started)
            return await answer(
                hit, for: request, key: AnswerKey(path: path, accept: accept), spec: parsed.processing, ifNoneMatch: ifNoneMatch,
                remembering: true)
        }
        do {
            try await options.sources.check(parsed.source)
        } catch {
            options.logger.info("refused source", metadata: ["source": "\(parsed.source)", "reason": "\(error)"])
            return .error(error.status, error.description)
        }
        let response: ImageResponse
        do {
            response = try await options.gate.run { [pipeline, options] in
                try await Self.load(request, pipeline: pipeline, metrics: options.metrics)
            }
        } catch is AdmissionGate.Overloaded {
            return .error(503, AdmissionGate.Overloaded().description, retryAfter: options.retryAfterSeconds)
        } catch let error as ImageLoadError {
            let answer = Self.answer(for: error)
            options.logger.notice(
                "load failed", metadata: ["source": "\(parsed.source)", "status": "\(answer.status)", "error": "\(error)"])
            return answer
        } catch {
            return .error(503, "The load was cancelled.")
        }
        return await answer(
            response, for: request, key: AnswerKey(path: path, accept: accept), spec: parsed.processing, ifNoneMatch: ifNoneMatch,
            remembering: false)
    }

    /// The answer to `GET path` when it can be given at once, without waiting for anything: a
    /// path that does not parse or whose signature is wrong, or an image the memory tier holds
    /// whose answer was prepared before (a thumbnail asked for a third time or more: the second
    /// request prepared it). Nil when the answer needs a
    /// load or an encode. The server's event loops call it for every request
    /// (`MemoryAnswerHandler`), so it takes only short locks.
    public func answerAtOnce(path: String, accept: String?, ifNoneMatch: String?) -> ProxyAnswer? {
        let started = ContinuousClock.now
        if let known = prepared[AnswerKey(path: path, accept: accept)] {
            guard let hit = pipeline.cachedImage(for: known.request), known.response == hit else { return nil }
            options.metrics?.record(hit, duration: ContinuousClock.now - started)
            return known.answer(ifNoneMatch: ifNoneMatch)
        }
        if case let .failure(error) = check(path) { return .error(error.status, error.description) }
        return nil
    }

    /// A path parsed and its signature checked, with the request it makes.
    private struct CheckedPath: Sendable {
        let path: ProxyRequestPath
        /// The request for the path's processing, in the URL's explicit format if it names one.
        let request: ImageRequest

        /// The request for a client that accepts `accept`: the thumbnail kept in the format it
        /// is answered in (see ``OutputFormat/requested(explicit:accept:)``).
        func request(accepting accept: String?) -> ImageRequest {
            guard path.processing.processing != nil, path.processing.format == nil,
                let format = OutputFormat.requested(explicit: nil, accept: accept)
            else { return request }
            var negotiated = request
            negotiated.processedFormat = format
            return negotiated
        }
    }

    /// `path` parsed with its signature checked, from the memo when it was seen before.
    private func check(_ path: String) -> Result<CheckedPath, ProxyRequestError> {
        if let known = checkedPaths[path] { return known }
        let result = Result { () throws(ProxyRequestError) -> CheckedPath in
            let parsed = try ProxyRequestPath(parsing: Substring(path))
            try checkSignature(parsed)
            let request = ImageRequest(
                url: parsed.source, processing: parsed.processing.processing, processedFormat: parsed.processing.format)
            return CheckedPath(path: parsed, request: request)
        }
        checkedPaths.remember(result, for: path, cost: 3 * path.utf8.count + 512)
        return result
    }

    private func checkSignature(_ path: ProxyRequestPath) throws(ProxyRequestError) {
        if path.signature == ProxyRequestPath.unsignedMarker {
            guard options.allowsUnsigned else { throw .badSignature }
            return
        }
        guard let signer = options.signer, signer.isValid(path.signature, for: path.signedPart) else { throw .badSignature }
    }

    private static func load(_ request: ImageRequest, pipeline: ImagePipeline, metrics: ImageCacheMetrics?) async throws(ImageLoadError)
        -> ImageResponse
    {
        guard let metrics else { return try await pipeline.image(for: request) }
        return try await metrics.measure { () throws(ImageLoadError) in try await pipeline.image(for: request) }
    }

    /// The status and sentence for a failed load.
    static func answer(for error: ImageLoadError) -> ProxyAnswer {
        switch error {
        case let .network(failure) where failure.underlying is FetchBoundExceeded:
            .error(504, "The source was too slow: \(failure.underlying)")
        case let .network(failure): .error(502, "The source could not be reached: \(failure)")
        case let .httpStatus(status) where status == 404 || status == 410: .error(status, "The source answered \(status).")
        case let .httpStatus(status): .error(502, "The source answered \(status) instead of an image.")
        case let .invalidImage(reason): .error(502, "The source did not send an image this proxy serves: \(reason)")
        case let .decodingFailed(reason): .error(502, "The source's image could not be decoded: \(reason)")
        case let .bodyTooLarge(limit): .error(502, "The source's image is larger than the \(limit)-byte limit.")
        case .notCached, .cancelled, .storage: .error(503, "\(error)")
        }
    }

    /// The bytes to send for `response`, with their headers, or a 304; the answer is kept for the
    /// next request when `remembering` (the request was answered from memory).
    private func answer(
        _ response: ImageResponse, for request: ImageRequest, key: AnswerKey, spec: ProcessingSpec, ifNoneMatch: String?,
        remembering: Bool
    ) async -> ProxyAnswer {
        if let known = prepared[key], known.response == response { return known.answer(ifNoneMatch: ifNoneMatch) }
        guard let made = await prepare(response, for: request, spec: spec) else {
            return .error(502, "The processed image could not be encoded.")
        }
        // Only an answer made from what the memory tier hands out is worth keeping: the next
        // request gets that same response. And only once its path is asked for again: the first
        // request of a path is a load, and most paths a proxy loads (a new size, a new image) are
        // not asked for twice, so keeping their answers would hold their bytes after the memory
        // tier let them go.
        if remembering, made.response.source == .memory {
            let held =
                key.path.utf8.count + made.body.readableBytes + made.response.data.count + (made.response.decoded?.cost ?? 0)
            prepared.remember(made, for: key, cost: held)
        }
        return made.answer(ifNoneMatch: ifNoneMatch)
    }

    /// The answer's parts for `response`: the source's bytes for `original`, else the processed
    /// image's stored bytes, which the pipeline keeps in the format the request names.
    private func prepare(_ response: ImageResponse, for request: ImageRequest, spec: ProcessingSpec) async -> PreparedAnswer? {
        let varies = spec.format == nil
        guard spec.processing != nil else {
            return PreparedAnswer(
                request: request, response: response, body: response.data, contentType: response.info.format.mimeType, varies: false)
        }
        // A first load answers with the original's bytes and the thumbnail decoded; the memory
        // tier then holds the thumbnail with the bytes it is stored as.
        let stored = Self.isProcessedBytes(response) ? response : pipeline.cachedImage(for: request) ?? response
        if Self.isProcessedBytes(stored), let format = OutputFormat.encoded(stored.info.format),
            request.processedFormat.map({ $0 == format }) ?? true
        {
            return PreparedAnswer(
                request: request, response: stored, body: stored.data, contentType: "image/\(format.rawValue)", varies: varies)
        }
        // Nothing stored (the disk refused it): the pixels, encoded for this answer.
        guard let decoded = response.decoded else { return nil }
        let format = request.processedFormat ?? EncodedFormat.choice(for: decoded)
        let encoder = pipeline.configuration.encoder
        guard let bytes = try? await encoder.encodeOffPool(decoded, as: format, quality: Self.quality) else { return nil }
        return PreparedAnswer(
            request: request, response: response, body: bytes, contentType: "image/\(format.rawValue)", varies: varies)
    }

    /// Whether `response`'s bytes are its processed image's (a thumbnail the pipeline stored), not
    /// the original's beside the decoded pixels. A response without pixels carries the stored
    /// thumbnail: a pipeline that keeps no processed pixels (`keepsProcessedPixels`) answers so.
    private static func isProcessedBytes(_ response: ImageResponse) -> Bool {
        response.decoded.map { $0.pixelWidth == response.info.pixelWidth && $0.pixelHeight == response.info.pixelHeight } ?? true
    }

    /// The quality of images this proxy encodes itself, the pipeline's thumbnails' own.
    static let quality = 85
}
