import Foundation

/// Reads a response body from the network under the cache's rules: the size limit (checked against
/// the announced length before reading), the acceptor's look at the prefix until it has seen enough
/// (so a refusal cancels the rest of the transfer, through ``TransportResponse/cancelTransfer``),
/// and its verdict on the whole body.
///
/// The prefix is shown at the first chunk and then each time the body has doubled since the last
/// look, never per chunk: an acceptor copies and parses what it is shown, so a header that never
/// settles (a TIFF whose directory sits at the end) would otherwise cost a copy of the whole
/// prefix per chunk, quadratic in the body's size. Doubling keeps all the looks under twice the
/// body's size, and the whole body is judged by `finish` anyway.
struct BodyReader {
    let maxBodyBytes: Int

    func read(
        _ response: TransportResponse, acceptor: any ResponseBodyAcceptor, progress: HTTPCache.ProgressHandler?,
        watch: ExchangeWatch? = nil
    ) async throws -> (body: Data, description: BodyDescription) {
        let head = response.head
        try Self.refusing { try acceptor.accept(head) }
        if let expected = response.expectedLength, expected > maxBodyBytes {
            throw HTTPCacheError.bodyTooLarge(limit: maxBodyBytes)
        }
        var reading = Reading(
            response: response, acceptor: acceptor, progress: progress, watch: watch, maxBodyBytes: maxBodyBytes)
        do {
            if let whole = response.completeBody {
                // Already here (a small body comes so): the same rules, without awaiting the stream.
                if !whole.isEmpty { try reading.take(whole) }
            } else {
                for try await chunk in response.body { try reading.take(chunk) }
            }
        } catch {
            // Leaving the loop does not end a stream someone else still holds (the transport's
            // exchange does): without this, a refused page downloaded to its end.
            response.cancelTransfer?()
            throw error
        }
        let description = try Self.refusing { try acceptor.finish(reading.body, of: head) }
        return (reading.body, description)
    }

    /// A body being read, chunk by chunk.
    private struct Reading {
        let response: TransportResponse
        let acceptor: any ResponseBodyAcceptor
        let progress: HTTPCache.ProgressHandler?
        let watch: ExchangeWatch?
        let maxBodyBytes: Int
        var body = Data()
        /// Whether the acceptor has seen enough of the body's start.
        var settled = false
        /// The body's size at the acceptor's last look at it; 0 before the first.
        var inspectedSize = 0

        mutating func take(_ chunk: Data) throws {
            if body.isEmpty, chunk.count >= response.expectedLength ?? .max {
                body = chunk  // the whole body in one piece (small bodies arrive so): no copy
            } else {
                if body.isEmpty, let expected = response.expectedLength { body.reserveCapacity(expected) }
                body.append(chunk)
            }
            if body.count > maxBodyBytes { throw HTTPCacheError.bodyTooLarge(limit: maxBodyBytes) }
            watch?.received(totalBytes: body.count)
            progress?(body.count, response.expectedLength)
            // A complete body is judged whole by `finish`; a look at it as a prefix first would
            // only repeat the work.
            if !settled, body.count < response.expectedLength ?? .max, body.count >= 2 * inspectedSize {
                inspectedSize = body.count
                settled = try BodyReader.refusing { try acceptor.inspectPrefix(body, of: response.head) } == .sufficient
            }
        }
    }

    /// Runs an acceptor call, marking what it throws as a refusal (not a network failure).
    fileprivate static func refusing<Result>(_ call: () throws -> Result) throws -> Result {
        do {
            return try call()
        } catch {
            throw HTTPCacheError.refused(error)
        }
    }
}
