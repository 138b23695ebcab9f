import Foundation

/// What a ``ResponseBodyAcceptor`` learnt about a body, kept beside it in storage.
///
/// On disk these become the entry's `format` and `cost` attributes, so `cachectl` can show and
/// filter them and a later read need not inspect the body again. Both are optional; a plain HTTP
/// cache leaves them nil.
public struct BodyDescription: Sendable, Hashable {
    /// A short lowercase name for the body's format, such as `"png"`.
    public var format: String?
    /// What keeping the body in memory costs (decoded bytes for an image); nil means its byte count.
    public var cost: Int?
    /// The body's pixel size, which the image pipeline records as the entry's `pixelWidth` and
    /// `pixelHeight` attributes; not part of the HTTP cache's public surface, which knows nothing
    /// about images.
    package var pixelWidth: Int?
    package var pixelHeight: Int?

    /// Creates a description; both fields are optional.
    public init(format: String? = nil, cost: Int? = nil) {
        self.format = format
        self.cost = cost
    }

    /// A description with the pixel size an image body has.
    package init(format: String?, pixelWidth: Int?, pixelHeight: Int?, cost: Int?) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.cost = cost
    }
}
