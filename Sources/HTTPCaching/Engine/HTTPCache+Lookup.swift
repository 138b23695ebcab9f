import Foundation

/// Reading the tiers: the memory tier, then the disk tier, once per load.
extension HTTPCache {
    /// A stored entry and the tier it was found in.
    package struct Found: Sendable {
        package let entry: StoredEntry
        package let tier: HTTPCacheResponse.Tier
    }

    /// A look-up made ahead of a load (the image pipeline's fast path), handed to the load so that
    /// it does not read storage again: one load, one read, one hit or miss counted.
    package struct Lookup: Sendable {
        /// The storage key that was read.
        let key: String
        /// What the tiers held; nil when nothing.
        package let found: Found?
        /// The rule book's judgement of what was found, for a plain request; nil otherwise.
        package let plainReuse: PlainReuse?
    }

    /// Reads the tiers for `request` as a load of it would, without loading: the memory tier, then
    /// the disk tier (what it finds joins the memory tier). Nothing is read for a request that
    /// bypasses the cache.
    package func lookUp(_ request: HTTPCacheRequest) -> Lookup {
        let transaction = transaction(for: request, accepting: AcceptEveryBody(), progress: nil)
        let found = transaction.request.mode == .noStore ? nil : lookUp(transaction)
        return Lookup(key: transaction.key, found: found, plainReuse: found.flatMap { transaction.plainReuse(of: $0.entry) })
    }

    /// What the look-up made ahead of the load found, else what the tiers hold now.
    func found(_ transaction: Transaction) -> Found? {
        if let lookup = transaction.lookup { return lookup.found }
        return lookUp(transaction)
    }

    /// The memory tier's entry, else the disk tier's (kept in the memory tier from then on).
    private func lookUp(_ transaction: Transaction) -> Found? {
        if let entry = memory?.entry(for: transaction.key) { return Found(entry: entry, tier: .memory) }
        guard let disk else { return nil }
        let stored: StoredEntry?
        do {
            stored = try disk.read(transaction.key)
        } catch {
            // A store that cannot be read is a miss: the origin still answers.
            storageFailureLog.record(error, operation: "read")
            return nil
        }
        guard let entry = stored else { return nil }
        memory?.keep(entry, for: transaction.key, plainReuse: transaction.plainReuse(of: entry))
        return Found(entry: entry, tier: .disk)
    }
}
