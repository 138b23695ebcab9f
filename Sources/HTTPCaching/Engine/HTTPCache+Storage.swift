import Foundation

/// Writing to the tiers: storing, freshening and invalidating.
extension HTTPCache {
    /// Keeps a new response in every tier, replacing what was stored for the key: the memory
    /// tier now, the disk tier behind the response (``WriteBehindQueue``, which answers reads of
    /// it until it commits).
    ///
    /// A disk failure (full, read-only, an entry the store refuses, a queue at its limits) is
    /// counted and logged, never thrown: the response the origin sent is the caller's whether or
    /// not it could be cached.
    func store(_ entry: StoredEntry, _ transaction: Transaction) {
        keep(entry, transaction, replacingBody: true)
    }

    /// Replaces a stored response's headers after a validation; the body stays. As ``store(_:_:)``.
    func update(_ entry: StoredEntry, _ transaction: Transaction) {
        keep(entry, transaction, replacingBody: false)
    }

    private func keep(_ entry: StoredEntry, _ transaction: Transaction, replacingBody: Bool) {
        let entry = transaction.summarised(entry)
        memory?.keep(entry, for: transaction.key, plainReuse: transaction.plainReuse(of: entry))
        pendingWrites?.enqueue(
            .response(entry, evaluator: transaction.evaluator, replacesBody: replacingBody), for: transaction.key)
    }

    /// Runs `body` on the disk tier, if there is one; a failure is counted and logged, not thrown.
    private func onDisk(_ operation: String, _ body: (DiskTier) async throws -> Void) async {
        guard let disk else { return }
        do {
            try await body(disk)
        } catch {
            storageFailureLog.record(error, operation: operation)
        }
    }

    /// RFC 9111 §4.4: after an unsafe method succeeds, the target URI's stored response is gone,
    /// and so are those of the `Location` and `Content-Location` URIs when they share its origin
    /// (another origin's entries are not this response's to invalidate).
    ///
    /// Each in the requester's partition and the shared one; other users' partitions cannot be
    /// named (their keys need their credentials) and keep their copies until they go stale.
    func invalidate(_ transaction: Transaction, locations headers: HeaderFields) async {
        let target = transaction.request.url
        var keys = [transaction.key, transaction.urlKey]
        for name in ["Location", "Content-Location"] {
            guard let value = headers.firstValue(for: name),
                let url = URL(string: value, relativeTo: target)?.absoluteURL, Self.sameOrigin(url, target)
            else { continue }
            let urlKey = configuration.cacheKey(url)
            keys += [storageKey(urlKey, headers: transaction.request.headers), urlKey]
        }
        var seen = Set<String>()
        await remove(keys.filter { seen.insert($0).inserted })
    }

    /// Removes `keys` from every tier, writes waiting for them included, after any being
    /// committed. A disk failure is counted and logged as for ``store(_:_:)``.
    func remove(_ keys: [String]) async {
        for key in keys { memory?.remove(key) }
        await pendingWrites?.cancel(keys)
        await onDisk("remove") { try await $0.remove(keys) }
    }

    private static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        first.scheme?.lowercased() == second.scheme?.lowercased() && first.host?.lowercased() == second.host?.lowercased()
            && first.port == second.port
    }
}
