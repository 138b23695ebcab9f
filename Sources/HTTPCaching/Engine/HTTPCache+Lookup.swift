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
    ///
    /// A class, immutable: the fast path and the load it hands it to share one copy of the entry
    /// (an entry is a dozen references; copying it cost more than the rest of a disk hit's judgement).
    package final class Lookup: Sendable {
        /// The storage key that was read.
        let key: String
        /// What the tiers held; nil when nothing.
        package let found: Found?
        /// The rule book's judgement of what was found, for a plain request; nil otherwise.
        package let plainReuse: PlainReuse?

        init(key: String, found: Found?, plainReuse: PlainReuse?) {
            self.key = key
            self.found = found
            self.plainReuse = plainReuse
        }
    }

    /// Reads the tiers for a `GET` without header fields of its own, stored under `key`, as a load
    /// of it would, without loading: the memory tier, then the disk tier (what it finds joins the
    /// memory tier), with the rule book's judgement of what was found under `override` (nil: the
    /// configured evaluator's). `readingMemory` false skips the memory tier, for a caller that has
    /// just seen it hold nothing under `key`.
    ///
    /// Such a request's storage key is its URL key: only credentials partition it.
    package func lookUp(plainRequestFor key: String, override: FreshnessOverride?, readingMemory: Bool = true) -> Lookup {
        read(key, plainRequestEvaluator: evaluator(override: override), judgingMemoryHits: true, readingMemory: readingMemory)
    }

    /// What the look-up made ahead of the load found, else what the tiers hold now.
    func found(_ transaction: Transaction) -> Found? {
        if let lookup = transaction.lookup { return lookup.found }
        let plain = transaction.isPlain ? transaction.evaluator : nil
        return read(transaction.key, plainRequestEvaluator: plain, judgingMemoryHits: false).found
    }

    /// The memory tier's entry, else the disk tier's (a write waiting for it first), which joins
    /// the memory tier with its judgement for a plain request when `plainRequestEvaluator` is
    /// given (the request is plain).
    private func read(
        _ key: String, plainRequestEvaluator evaluator: CachePolicyEvaluator?, judgingMemoryHits: Bool,
        readingMemory: Bool = true
    ) -> Lookup {
        func judged(_ entry: StoredEntry) -> PlainReuse? {
            evaluator?.plainReuse(of: entry.response, summary: entry.freshness)
        }
        if readingMemory, let entry = memory?.entry(for: key) {
            return Lookup(
                key: key, found: Found(entry: entry, tier: .memory), plainReuse: judgingMemoryHits ? judged(entry) : nil)
        }
        guard let disk else { return Lookup(key: key, found: nil, plainReuse: nil) }
        let stored: StoredEntry?
        do {
            // A write not committed yet answers as the disk will once it is.
            stored = try pendingWrites?.response(for: key) ?? disk.read(key)
        } catch {
            // A store that cannot be read is a miss: the origin still answers.
            storageFailureLog.record(error, operation: "read")
            return Lookup(key: key, found: nil, plainReuse: nil)
        }
        guard let entry = stored else { return Lookup(key: key, found: nil, plainReuse: nil) }
        let reuse = judged(entry)
        memory?.keep(entry, for: key, plainReuse: reuse)
        return Lookup(key: key, found: Found(entry: entry, tier: .disk), plainReuse: reuse)
    }
}
