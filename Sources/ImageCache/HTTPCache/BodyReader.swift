import Foundation

/// Reads a response body from the network under the cache's rules: the size limit (checked against
/// the announced length before reading), the acceptor's look at each new prefix until it has seen
/// enough (so a refusal cancels the rest of the transfer), and its verdict on the whole body.
struct BodyReader {
    let maxBodyBytes: Int

    func read(
        _ response: TransportResponse, acceptor: any ResponseBodyAcceptor, progress: HTTPCache.ProgressHandler?
    ) async throws -> (body: Data, description: BodyDescription) {
        let head = response.head
        try Self.refusing { try acceptor.accept(head) }
        if let expected = response.expectedLength, expected > maxBodyBytes {
            throw HTTPCacheError.bodyTooLarge(limit: maxBodyBytes)
        }
        var body = Data()
        var settled = false
        // Leaving this loop early (by throwing) ends the stream, which cancels the transfer.
        for try await chunk in response.body {
            if body.isEmpty, chunk.count >= response.expectedLength ?? .max {
                body = chunk  // the whole body in one piece (small bodies arrive so): no copy
            } else {
                if body.isEmpty, let expected = response.expectedLength { body.reserveCapacity(expected) }
                body.append(chunk)
            }
            if body.count > maxBodyBytes { throw HTTPCacheError.bodyTooLarge(limit: maxBodyBytes) }
            progress?(body.count, response.expectedLength)
            // A complete body is judged whole by `finish` below; a look at it as a prefix first
            // would only repeat the work.
            if !settled, body.count < response.expectedLength ?? .max {
                settled = try Self.refusing { try acceptor.inspectPrefix(body, of: head) } == .sufficient
            }
        }
        let description = try Self.refusing { try acceptor.finish(body, of: head) }
        return (body, description)
    }

    /// Runs an acceptor call, marking what it throws as a refusal (not a network failure).
    private static func refusing<Result>(_ call: () throws -> Result) throws -> Result {
        do {
            return try call()
        } catch {
            throw HTTPCacheError.refused(error)
        }
    }
}
