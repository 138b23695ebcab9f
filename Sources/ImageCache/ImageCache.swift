// ImageCache: the image pipeline on top of CacheStorage — caching policies, HTTP caching
// (RFC 9111) as a private cache, the loader, the memory tier and the load state.
//
// What an image is comes from ImageFormats, re-exported: `ImageInfo`, `ImageFormat` and
// `ImageValidator` are part of the pipeline's vocabulary, so `import ImageCache` is enough.
@_exported import ImageFormats
// The HTTP cache underneath, re-exported for the same reason: requests carry `HeaderFields`,
// the configuration takes an `HTTPTransport`, responses keep their `HTTPResponseHead`.
@_exported import HTTPCaching
// Decoding, re-exported: a request asks for an `ImageProcessing`, a response carries a `DecodedImage`.
@_exported import ImageDecoding
