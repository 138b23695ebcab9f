import Foundation

/// Reads a response body under the pipeline's rules: a size limit (checked against the announced
/// length before reading), the image's header inspected as soon as enough bytes have arrived (so a
/// bomb or an HTML page is refused without downloading the rest), and a full validation at the end.
struct ImageDownload {
    let validator: ImageValidator
    let maxBodyBytes: Int

    func read(
        _ response: TransportResponse, report: (_ received: Int, _ expected: Int?) -> Void
    ) async throws -> (data: Data, info: ImageInfo) {
        if let expected = response.expectedLength, expected > maxBodyBytes {
            throw ImageLoadError.bodyTooLarge(limit: maxBodyBytes)
        }
        var data = Data()
        if let expected = response.expectedLength { data.reserveCapacity(expected) }
        var headerChecked = false
        // Leaving this loop early (by throwing) ends the stream, which cancels the transfer.
        for try await chunk in response.body {
            data.append(chunk)
            if data.count > maxBodyBytes { throw ImageLoadError.bodyTooLarge(limit: maxBodyBytes) }
            report(data.count, response.expectedLength)
            if !headerChecked {
                switch validator.inspectPrefix(data) {
                case .needMoreBytes: break
                case let .refused(error): throw ImageLoadError.invalidImage(error)
                case .accepted: headerChecked = true
                }
            }
        }
        do {
            return (data, try validator.validate(data))
        } catch {
            throw ImageLoadError.invalidImage(error)
        }
    }
}
