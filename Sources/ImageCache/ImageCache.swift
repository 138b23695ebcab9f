// ImageCache: the image pipeline on top of CacheStorage — caching policies, HTTP caching
// (RFC 9111) as a private cache, the loader, and image format sniffing.
