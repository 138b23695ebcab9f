/// Why decompressing a DEFLATE or gzip stream stopped early.
enum InflateFailure: Error, Equatable {
    /// The compressed bytes end before the stream does (a prefix, or a cut-off file).
    case needMoreInput
    /// The output reached the caller's limit: the stream expands further than anyone should need.
    case outputLimitReached
    /// The compressed bytes break the format.
    case malformed(String)
}
