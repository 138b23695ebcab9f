import Foundation

/// Writing to the tiers: storing, freshening and invalidating.
extension HTTPCache {
    /// Keeps a new response in every tier, replacing what was stored for the key.
    func store(_ entry: StoredEntry, _ transaction: Transaction) async throws {
        memory?.set(entry, for: transaction.key, cost: entry.cost)
        try await disk?.write(entry, for: transaction.key, evaluator: transaction.evaluator)
    }

    /// Replaces a stored response's headers after a validation; the body stays.
    func update(_ entry: StoredEntry, _ transaction: Transaction) async throws {
        memory?.set(entry, for: transaction.key, cost: entry.cost)
        try await disk?.update(entry, for: transaction.key, evaluator: transaction.evaluator)
    }

    /// RFC 9111 §4.4: after an unsafe method succeeds, the target URI's stored response is gone,
    /// and so are those of the `Location` and `Content-Location` URIs when they share its origin
    /// (another origin's entries are not this response's to invalidate).
    func invalidate(_ transaction: Transaction, locations headers: HeaderFields) async throws {
        let target = transaction.request.url
        var keys = [transaction.key]
        for name in ["Location", "Content-Location"] {
            guard let value = headers.firstValue(for: name),
                let url = URL(string: value, relativeTo: target)?.absoluteURL, Self.sameOrigin(url, target)
            else { continue }
            keys.append(configuration.cacheKey(url))
        }
        try await remove(keys)
    }

    func remove(_ keys: [String]) async throws {
        for key in keys { memory?.removeValue(for: key) }
        try await disk?.remove(keys)
    }

    private static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        first.scheme?.lowercased() == second.scheme?.lowercased() && first.host?.lowercased() == second.host?.lowercased()
            && first.port == second.port
    }
}
