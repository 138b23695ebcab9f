import Foundation

/// Reading the tiers: the memory tier, then the disk tier, once per load.
extension HTTPCache {
    /// A stored entry and the tier it was found in.
    struct Found: Sendable {
        let entry: StoredEntry
        let tier: HTTPCacheResponse.Tier
    }

    /// Reads the tiers for a `GET` without header fields of its own, stored under `key`, as a load
    /// of it would, without loading: the memory tier, then the disk tier (what it finds joins the
    /// memory tier), with the rule book's judgement of what was found under `override` (nil: the
    /// configured evaluator's), as of now. `readingMemory` false skips the memory tier, for a
    /// caller that has just seen it hold nothing under `key`.
    ///
    /// Such a request's storage key is its URL key: only credentials partition it.
    func lookUp(plainRequestFor key: String, override: FreshnessOverride?, readingMemory: Bool = true) -> Lookup {
        let (found, plainReuse) = read(
            key, plainRequestEvaluator: evaluator(override: override), judgingMemoryHits: true, readingMemory: readingMemory)
        return Lookup(key: key, found: found, plainReuse: plainReuse, now: configuration.clock())
    }

    /// What the look-up made ahead of the load found, else what the tiers hold now.
    func found(_ transaction: Transaction) -> Found? {
        if let lookup = transaction.lookup { return lookup.found }
        let plain = transaction.isPlain ? transaction.evaluator : nil
        return read(transaction.key, plainRequestEvaluator: plain, judgingMemoryHits: false).found
    }

    /// The memory tier's entry, else the disk tier's (a write waiting for it first), which joins
    /// the memory tier with its judgement for a plain request when `plainRequestEvaluator` is
    /// given (the request is plain); with that judgement when asked for it.
    private func read(
        _ key: String, plainRequestEvaluator evaluator: CachePolicyEvaluator?, judgingMemoryHits: Bool,
        readingMemory: Bool = true
    ) -> (found: Found?, plainReuse: PlainReuse?) {
        func judged(_ entry: StoredEntry) -> PlainReuse? {
            evaluator?.plainReuse(of: entry.response, summary: entry.freshness)
        }
        if readingMemory, let entry = memory?.entry(for: key) {
            return (Found(entry: entry, tier: .memory), judgingMemoryHits ? judged(entry) : nil)
        }
        guard let disk else { return (nil, nil) }
        let stored: StoredEntry?
        do {
            // A write not committed yet answers as the disk will once it is.
            stored = try pendingWrites?.response(for: key) ?? disk.read(key)
        } catch {
            // A store that cannot be read is a miss: the origin still answers.
            storageFailureLog.record(error, operation: "read")
            return (nil, nil)
        }
        guard let entry = stored else { return (nil, nil) }
        let reuse = judged(entry)
        memory?.keep(entry, for: key, plainReuse: reuse)
        return (Found(entry: entry, tier: .disk), reuse)
    }
}
