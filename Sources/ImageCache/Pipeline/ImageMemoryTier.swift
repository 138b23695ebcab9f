/// The pipeline's memory tier as the HTTP cache sees it: the cache reads images with their
/// responses from it before its disk tier, and keeps it in step whenever it stores, freshens
/// (a 304, a `stale-while-revalidate` refresh) or removes a response.
///
/// An entry whose description names no image format and size (one not stored by a pipeline) is
/// not kept: the pipeline could not say what it is without validating it again.
struct ImageMemoryTier: HTTPMemoryTier {
    let images: MemoryCache<CacheKey, CachedImage>

    func entry(for key: String) -> StoredEntry? {
        images.value(for: CacheKey(key))?.storedEntry
    }

    func keep(_ entry: StoredEntry, for key: String, plainReuse: PlainReuse?) {
        if let image = CachedImage(entry, reuse: plainReuse) {
            images.set(image, for: CacheKey(key), cost: image.cost)
        } else {
            images.removeValue(for: CacheKey(key))
        }
    }

    func remove(_ key: String) {
        images.removeValue(for: CacheKey(key))
    }
}
