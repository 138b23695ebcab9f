import Foundation

/// How the pipeline vets a body as it arrives: only a success carries an image; the image's header
/// is inspected as soon as enough bytes have arrived, so a bomb or an HTML page is refused without
/// downloading the rest; the whole image is validated at the end.
///
/// One acceptor serves one load and remembers the facts of the image it validated last, for that
/// load to build its response (`lastValidated` is behind a `Mutex`).
final class ImageBodyAcceptor: ResponseBodyAcceptor {
    private let validator: ImageValidator
    private let lastValidated = Mutex<ImageInfo?>(nil)

    init(validator: ImageValidator) {
        self.validator = validator
    }

    /// The facts of the last body ``finish(_:of:)`` accepted; nil before any.
    var validatedInfo: ImageInfo? { lastValidated.withLock { $0 } }

    func accept(_ head: HTTPResponseHead) throws {
        guard (200..<300).contains(head.status) else { throw ImageLoadError.httpStatus(head.status) }
    }

    func inspectPrefix(_ prefix: Data, of head: HTTPResponseHead) throws -> BodyPrefixVerdict {
        switch validator.inspectPrefix(prefix) {
        case .needMoreBytes: return .needMoreBytes
        case let .refused(error): throw ImageLoadError.invalidImage(error)
        case .accepted: return .sufficient
        }
    }

    func finish(_ body: Data, of head: HTTPResponseHead) throws -> BodyDescription {
        let info: ImageInfo
        do {
            info = try validator.validate(body)
        } catch {
            throw ImageLoadError.invalidImage(error)
        }
        lastValidated.withLock { $0 = info }
        return BodyDescription(info, byteCount: body.count)
    }
}
