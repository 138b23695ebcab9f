import Testing

/// Waits until `condition` holds, asking again every 50 ms for up to `timeout`, and records an
/// issue when it never does: for what the proxy does behind its answers, such as its pipeline's
/// writes to the cache, which commit after the response has gone.
func eventually(
    timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("still not so after \(timeout)", sourceLocation: sourceLocation)
}
