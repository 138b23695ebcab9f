import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// A GET as a client of the proxy sends it, and what came back.
struct Fetched: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

enum HTTPGet {
    static let client = HTTPClient.shared

    static func get(_ url: URL, headers: [(String, String)] = [], timeout: Duration = .seconds(60)) async throws -> Fetched {
        var request = HTTPClientRequest(url: url.absoluteString)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .init(timeout))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        return Fetched(status: Int(response.status.code), headers: fields, body: Data(buffer: body))
    }
}
