import Foundation

/// `cases.json`: the http-tests/cache-tests suite exported as data (see the README beside it).
///
/// Only what a replay needs is decoded; field names follow the file, in Swift's casing.
package struct CacheTestsFile: Decodable, Sendable {
    /// Every test, in the file's order.
    package let tests: [CacheTestsCase]
    /// The implementations whose published results each test carries.
    package let implementations: [Implementation]

    /// A published implementation: `chrome`, `squid`, ….
    package struct Implementation: Decodable, Sendable {
        package let key: String
        package let name: String
        /// `browser`, `rev-proxy` or `cdn`.
        package let type: String
        package let version: String
    }

    /// Reads and decodes the file at `url`.
    package static func load(from url: URL) throws -> CacheTestsFile {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(CacheTestsFile.self, from: Data(contentsOf: url))
    }

    /// The tests meant for a private (single-user) cache: the ones this project scores.
    package var privateTests: [CacheTestsCase] { tests.filter(\.applies.private) }
}
