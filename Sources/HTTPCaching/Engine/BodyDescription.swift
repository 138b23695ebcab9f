import Foundation

/// What a ``ResponseBodyAcceptor`` learnt about a body, kept beside it in storage.
///
/// On disk these become the entry's `format`, `pixelWidth`, `pixelHeight` and `cost` attributes, so
/// `cachectl` can show and filter them and a later read need not inspect the body again. Every
/// field is optional; a plain HTTP cache leaves them all nil.
public struct BodyDescription: Sendable, Hashable {
    /// A short lowercase name for the body's format, such as `"png"`.
    public var format: String?
    /// Pixel width, for an image.
    public var pixelWidth: Int?
    /// Pixel height, for an image.
    public var pixelHeight: Int?
    /// What keeping the body in memory costs (decoded bytes for an image); nil means its byte count.
    public var cost: Int?

    /// Creates a description; every field is optional.
    public init(format: String? = nil, pixelWidth: Int? = nil, pixelHeight: Int? = nil, cost: Int? = nil) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.cost = cost
    }
}
