import Foundation
import HTTPCaching
import LoopbackOrigin

/// One registered test at the origin: its config, its log, and the response headers it resolved
/// for each request it answered (the `*_validated` rule compares against those).
struct OriginTest: Sendable {
    let config: CacheTestsCase
    let token: String
    /// The test's time, which the answers' `Date` and `Server-Now` give.
    let clock: ReplayClock
    private(set) var log: [OriginLogEntry] = []
    private var resolvedHeaders: [Int: [HeaderLine]] = [:]

    init(config: CacheTestsCase, token: String, clock: ReplayClock) {
        self.config = config
        self.token = token
        self.clock = clock
    }

    /// The config for a request: by its `Req-Num`, else by how many requests came before.
    private func request(clientNumber: Int?) -> CacheTestsCase.Request? {
        let number = clientNumber.flatMap { $0 == 0 ? nil : $0 } ?? log.count + 1
        return config.requests.indices.contains(number - 1) ? config.requests[number - 1] : nil
    }

    /// How long to wait before answering; nil when no request config matches.
    func responsePause(clientNumber: Int?) -> Double? {
        request(clientNumber: clientNumber).map(\.origin.responsePauseS)
    }

    /// The answer to `received`, logged; nil when no request config matches.
    mutating func answer(_ received: OriginRequest, clientNumber: Int?, now: Date) -> OriginResponse? {
        guard let request = request(clientNumber: clientNumber) else { return nil }
        let serverNumber = log.count + 1
        let status = status(for: request, received: received)
        let baseURL = received.target
        var lines = NodeHeaderList()
        lines.set("Server-Base-Url", baseURL)
        lines.set("Server-Request-Count", String(serverNumber))
        lines.set("Client-Request-Count", clientNumber.map(String.init) ?? "NaN")
        lines.set("Server-Now", String(HeaderValues.milliseconds(now)))
        var resolved: [HeaderLine] = []
        var saved: [(name: String, value: String)] = []
        for spec in request.origin.responseHeaders {
            let value = HeaderValues.resolve(spec, serverNow: now, baseURL: baseURL)
            lines.append(spec.name, value)
            resolved.append(HeaderLine(spec.name, value))
            guard spec.check ?? true else { continue }
            let joined = lines.values(for: spec.name).joined(separator: ", ")
            if let index = saved.firstIndex(where: { $0.name.lowercased() == spec.name.lowercased() }) {
                saved[index].value = joined
            } else {
                saved.append((spec.name, joined))
            }
        }
        resolvedHeaders[request.num] = resolved
        if lines.values(for: "Content-Type").isEmpty { lines.set("Content-Type", "text/plain") }
        log.append(
            OriginLogEntry(
                requestNumber: clientNumber, method: received.method, requestHeaders: Self.logged(received.headers),
                savedResponseHeaders: saved))
        lines.set("Request-Numbers", log.map { $0.requestNumber.map(String.init) ?? "NaN" }.joined(separator: " "))
        // What Node's http server adds when writing the head.
        if lines.values(for: "Date").isEmpty { lines.set("Date", HTTPDate.string(from: now)) }
        // Node keeps a response's own `Connection` (a case may list fields in it that the cache
        // must drop), and adds keep-alive only when there is none.
        if lines.values(for: "Connection").isEmpty {
            lines.set("Connection", "keep-alive")
            if lines.values(for: "Keep-Alive").isEmpty { lines.set("Keep-Alive", "timeout=5") }
        }
        if request.origin.disconnect { return .dropConnection }
        let noBody = status == 204 || status == 304
        let body = noBody ? Data() : Data((request.origin.responseBody.flatMap { $0.isEmpty ? nil : $0 } ?? token).utf8)
        return OriginResponse(status: status, headers: lines.lines, body: body)
    }

    /// The configured status; for a `*_validated` request, 304 when a validator the previous
    /// response carried came back exactly, else 999.
    private func status(for request: CacheTestsCase.Request, received: OriginRequest) -> Int {
        guard let type = request.expected.type, type.hasSuffix("validated") else { return request.origin.responseStatus.code }
        let previous = previousHeaders(before: request.num)
        func last(_ name: String) -> String? { previous.last { $0.name.lowercased() == name.lowercased() }?.value }
        if let lastModified = last("Last-Modified"), received.header("If-Modified-Since") == lastModified { return 304 }
        if let entityTag = last("ETag"), received.header("If-None-Match") == entityTag { return 304 }
        return 999
    }

    /// The previous request's response headers as resolved when served; a date offset never resolved
    /// (the origin never saw that request) cannot match, so only literal values count then.
    private func previousHeaders(before number: Int) -> [HeaderLine] {
        if let resolved = resolvedHeaders[number - 1] { return resolved }
        guard number >= 2 else { return [] }
        return config.requests[number - 2].origin.responseHeaders.compactMap { spec in
            spec.dateOffsetS == nil && spec.locationPath == nil ? spec.value.map { HeaderLine(spec.name, $0) } : nil
        }
    }

    /// Request headers as the log keeps them: lowercased names, repeated lines joined with ", ".
    private static func logged(_ headers: [HeaderLine]) -> [String: String] {
        var joined: [String: String] = [:]
        for line in headers {
            let name = line.name.lowercased()
            joined[name] = joined[name].map { "\($0), \(line.value)" } ?? line.value
        }
        return joined
    }
}
