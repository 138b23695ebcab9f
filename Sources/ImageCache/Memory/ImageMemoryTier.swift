import Foundation

/// The pipeline's memory tier as the HTTP cache sees it: the cache reads images with their
/// responses from it before its disk tier, and keeps it in step whenever it stores, freshens
/// (a 304, a `stale-while-revalidate` refresh) or removes a response.
///
/// An entry whose description names no image format and size (one not stored by a pipeline) is
/// not kept: the pipeline could not say what it is without validating it again. Decoded images
/// (variants) kept beside an entry go with it: when the entry is removed, or replaced by other
/// bytes, they are removed too, so pixels never outlive the bytes they were decoded from.
struct ImageMemoryTier: HTTPMemoryTier {
    let images: MemoryCache<MemoryKey, CachedImage>
    /// The variant keys kept for each entry's key.
    private let variants = Mutex<[String: Set<MemoryKey>]>([:])

    init(images: MemoryCache<MemoryKey, CachedImage>) {
        self.images = images
    }

    func entry(for key: String) -> StoredEntry? {
        images.value(for: MemoryKey(key))?.storedEntry
    }

    func keep(_ entry: StoredEntry, for key: String, plainReuse: PlainReuse?) {
        let cacheKey = MemoryKey(key)
        // Variants and the base go unless the bytes they were decoded from are the ones held: with
        // nothing held (a variant read from disk, or bytes the tier let go) there is nothing to compare.
        let held = images.value(for: cacheKey)
        let sameBytes = held?.data == entry.body
        if !sameBytes { removeVariants(of: key) }
        if let image = CachedImage(entry, reuse: plainReuse, base: sameBytes ? held?.base : nil) {
            images.set(image, for: cacheKey, cost: image.cost)
        } else {
            images.removeValue(for: cacheKey)
        }
    }

    func remove(_ key: String) {
        images.removeValue(for: MemoryKey(key))
        removeVariants(of: key)
    }

    /// Keeps `image`, decoded from the bytes kept under `source`, under `key`.
    func keepVariant(_ image: CachedImage, for key: MemoryKey, of source: MemoryKey) {
        variants.withLock { _ = $0[source.string, default: []].insert(key) }
        images.set(image, for: key, cost: image.cost)
    }

    /// What the tier holds under `key` when it is `data`, the bytes a load just returned.
    func entry(holding data: Data, under key: MemoryKey) -> CachedImage? {
        guard let held = images.value(for: key), held.data == data else { return nil }
        return held
    }

    /// Keeps `base` beside `held`, the entry ``entry(holding:under:)`` returned, while it is still
    /// the one under `key`: a base never joins bytes other than those it was decoded from.
    func keep(_ base: DecodedBase, with held: CachedImage, under key: MemoryKey) {
        images.replaceValue(for: key) { current in
            guard current === held else { return nil }
            let image = held.keeping(base)
            return (image, image.cost)
        }
    }

    private func removeVariants(of key: String) {
        let keys = variants.withLock { $0.removeValue(forKey: key) } ?? []
        for variant in keys { images.removeValue(for: variant) }
    }
}
