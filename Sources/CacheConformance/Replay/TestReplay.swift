import CacheStorage
import Foundation
import HTTPCaching
import NIOConcurrencyHelpers

/// Replays one test against a fresh ``HTTPCache`` (a new store in a temporary folder) and a fresh
/// resource at the origin, sending each request through the cache's public API and checking as
/// upstream's harness does. The cache and the origin share the test's ``ReplayClock``: where the
/// test pauses, its background work is waited for and the clock moved on, so no outcome depends
/// on how fast the machine is.
package struct TestReplay: Sendable {
    package let test: CacheTestsCase
    package let origin: ConformanceOrigin
    package let transport: any HTTPTransport
    /// Where the test's store is made (and removed afterwards).
    package let scratchFolder: URL
    /// How long one request may take in real time: five minutes, where upstream's harness allows
    /// 10 s. The replay's time is its ``ReplayClock``'s, so this only bounds a hang, and a machine
    /// busy with other work (a first batch of stores opened beside another test run's writes) must
    /// not turn into a cache's miss.
    package var requestTimeout: Duration = .seconds(300)
    /// Adjusts each test's cache configuration (after the replay's own settings); nothing by default.
    package var configureCache: @Sendable (inout HTTPCache.Configuration) -> Void = { _ in }

    package init(test: CacheTestsCase, origin: ConformanceOrigin, transport: any HTTPTransport, scratchFolder: URL) {
        self.test = test
        self.origin = origin
        self.transport = transport
        self.scratchFolder = scratchFolder
    }

    /// Why the cache's API cannot express this test, or nil when it can.
    package static func inapplicability(of test: CacheTestsCase) -> String? {
        for request in test.requests {
            if !request.origin.interimResponses.isEmpty {
                return "interim (1xx) responses: HTTPCache's transport delivers final responses only"
            }
            if let option = request.fetchOptions.first(where: { !Self.expressibleFetchOptions.contains("\($0.key)=\($0.value)") }) {
                return "fetch option \(option.key): \(option.value) has no HTTPCache equivalent"
            }
        }
        return nil
    }

    /// fetch() options the replay honours: not following redirects is what HTTPCache always does.
    private static let expressibleFetchOptions: Set<String> = ["redirect=manual"]

    package func run() async -> TestOutcome {
        if let reason = Self.inapplicability(of: test) { return .notApplicable(reason: reason) }
        let token = UUID().uuidString.lowercased()
        let folder = scratchFolder.appendingPathComponent(token, isDirectory: true)
        let clock = ReplayClock()
        origin.register(test, token: token, clock: clock)
        defer {
            origin.unregister(token: token)
            try? FileManager.default.removeItem(at: folder)
        }
        let store: PersistentStore
        do {
            store = try await Self.offPool { try PersistentStore(directory: folder) }
        } catch {
            return .failed(name: "Setup", message: "Could not open a store in \(folder.path): \(error)")
        }
        var configuration = HTTPCache.Configuration(store: store, transport: transport)
        // The suite drives the cache as an HTTP intermediary: where it can neither serve nor reach
        // the origin, it expects the generated 504 RFC 9111 describes, not an exception.
        configuration.generatesGatewayTimeout = true
        configureCache(&configuration)
        configuration.clock = { clock.now() }
        let cache = HTTPCache(configuration: configuration)
        let outcome = await replay(through: cache, token: token, clock: clock)
        await cache.waitForBackgroundWork()
        await cache.waitForPendingWrites()
        try? await Self.offPool { store.close() }
        return outcome
    }

    /// Runs `work` on a dispatch queue: opening and closing a store create files, start and join
    /// its threads and sync, which must not hold one of the cooperative pool's few threads while
    /// dozens of replays run at once.
    private static func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    private func replay(through cache: HTTPCache, token: String, clock: ReplayClock) async -> TestOutcome {
        var responses: [ReceivedResponse] = []
        do {
            for request in test.requests {
                let received = try await send(request, through: cache, token: token, previous: responses.last, clock: clock)
                responses.append(received)
                try ResponseChecks(request: request, token: token).check(received)
                if request.pauseAfterS > 0 {
                    // What the pause would have let finish (a background revalidation) finishes first.
                    await cache.waitForBackgroundWork()
                    clock.advance(by: request.pauseAfterS)
                }
            }
            try OriginLogChecks(test: test, responses: responses, log: origin.log(token: token)).check()
            return .passed
        } catch let failure as CheckFailure {
            return failure.outcome
        } catch let missing as MissingLogEntry {
            return missing.outcome
        } catch let error as HTTPCacheError {
            return .failed(name: "HTTPCacheError", message: error.description)
        } catch is RequestTimeout {
            return .failed(name: "Timeout", message: "No response within \(requestTimeout)")
        } catch {
            return .failed(name: "\(type(of: error))", message: "\(error)")
        }
    }

    /// Sends one request with the client's headers (`conventions.client_added_request_headers`):
    /// the test's, then `Test-Name`, `Test-ID` and `Req-Num`.
    private func send(
        _ request: CacheTestsCase.Request, through cache: HTTPCache, token: String, previous: ReceivedResponse?,
        clock: ReplayClock
    ) async throws -> ReceivedResponse {
        var headers = HeaderFields()
        for spec in request.requestHeaders {
            // magic_ims: a relative If-Modified-Since is a date from the previous response's Server-Now.
            let base = previous?.serverNow ?? clock.now()
            headers.append(spec.name, HeaderValues.resolve(spec, serverNow: base, baseURL: ""))
        }
        headers.append("Test-Name", test.name)
        headers.append("Test-ID", test.id)
        headers.append("Req-Num", String(request.num))
        let httpRequest = HTTPCacheRequest(
            url: origin.url(token: token, suffix: request.urlSuffix), method: request.method, headers: headers,
            body: request.requestBody.map { Data($0.utf8) })
        let response = try await withTimeout(requestTimeout) { try await cache.response(for: httpRequest) }
        return ReceivedResponse(
            status: response.head.status, headers: response.head.headers, body: String(decoding: response.body, as: UTF8.self))
    }

    /// `operation`'s result, or ``RequestTimeout`` once `timeout` has passed; the operation is then
    /// cancelled and abandoned, not awaited, so a request that ignores cancellation cannot hang the run.
    private func withTimeout<Result: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let answered = NIOLockedValueBox(false)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            @Sendable func answer(_ result: Swift.Result<Result, any Error>) {
                let first = answered.withLockedValue { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(with: result) }
            }
            let work = Task { try await operation() }
            let timer = Task {
                try await Task.sleep(for: timeout)
                answer(.failure(RequestTimeout()))
                work.cancel()
            }
            Task {
                let result = await work.result
                timer.cancel()
                answer(result)
            }
        }
    }
}

/// A request that got no response within the replay's timeout.
struct RequestTimeout: Error {}
