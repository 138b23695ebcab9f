/// What the magic bytes say about some data.
enum SniffOutcome: Equatable {
    /// A supported image format.
    case image(ImageFormat)
    /// Not an image, or an image in an unsupported format.
    case refused(ImageValidationError)
    /// The prefix is too short to tell.
    case needMoreBytes
}
