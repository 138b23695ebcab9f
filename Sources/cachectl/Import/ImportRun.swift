import CacheStorage
import Foundation
import ImageCache

/// Validates each file and puts the accepted ones, in batches.
struct ImportRun {
    let store: PersistentStore
    let maxAge: TimeInterval?
    private let validator = ImageValidator()
    /// Entries per put: one commit each, like the pipeline's own writes.
    private let batchEntries = 64
    private let batchBytes = 16 << 20

    init(store: PersistentStore, maxAge: TimeInterval?) {
        self.store = store
        self.maxAge = maxAge
    }

    func perform(_ source: ImportSource) async throws -> ImportReport {
        var report = ImportReport(manifest: source.usesManifest, imported: 0, bytes: 0, refused: [])
        for escaping in source.escaping {
            report.refused.append(.init(file: escaping.relativePath, stage: "manifest", reason: "the manifest points outside the folder; it was not read"))
        }
        let progress = ProgressBar(label: "import", total: source.items.count)
        defer { progress.finish() }
        var batch: [NewEntry] = []
        var pendingBytes = 0
        for item in source.items {
            progress.advance()
            switch prepare(item) {
            case let .failure(refusal):
                report.refused.append(refusal)
            case let .success(entry):
                batch.append(entry)
                pendingBytes += entry.data.count
                if batch.count >= batchEntries || pendingBytes >= batchBytes {
                    try await store.put(batch)
                    report.imported += batch.count
                    report.bytes += pendingBytes
                    progress.advance(by: 0, bytes: pendingBytes)
                    batch.removeAll()
                    pendingBytes = 0
                }
            }
        }
        if !batch.isEmpty {
            try await store.put(batch)
            report.imported += batch.count
            report.bytes += pendingBytes
        }
        return report
    }

    /// The entry for `item`, or why it is refused. Checks every limit a put would, so one bad
    /// file never fails a whole batch.
    private func prepare(_ item: ImportSource.Item) -> Result<NewEntry, ImportReport.Refusal> {
        let configuration = store.configuration
        func refuse(_ stage: String, _ reason: String) -> Result<NewEntry, ImportReport.Refusal> {
            .failure(.init(file: item.relativePath, stage: stage, reason: reason))
        }
        guard item.key.utf8.count <= configuration.maxKeyBytes else {
            return refuse("store", StorageError.keyTooLong(byteCount: item.key.utf8.count, limit: configuration.maxKeyBytes).description)
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: item.file.path)
        let fileBytes = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard fileBytes <= configuration.maxEntryBytes else {
            return refuse("store", StorageError.entryTooLarge(key: item.key, byteCount: fileBytes, limit: configuration.maxEntryBytes).description)
        }
        let data: Data
        do {
            data = try Data(contentsOf: item.file)
        } catch {
            return refuse("read", "could not read the file (\(error.localizedDescription)); check its permissions")
        }
        let info: ImageInfo
        do {
            info = try validator.validate(data)
        } catch {
            return refuse("\(error.stage)", error.description)
        }
        let modified = attributes?[.modificationDate] as? Date ?? Date()
        return .success(NewEntry(key: item.key, data: data, attributes: entryAttributes(item, info, modified: modified)))
    }

    private func entryAttributes(_ item: ImportSource.Item, _ info: ImageInfo, modified: Date) -> EntryAttributes {
        if let restored = item.restored {
            var attributes = restored.attributes
            // The bytes are the authority on what the image is.
            attributes.format = info.format.rawValue
            attributes.pixelWidth = info.pixelWidth
            attributes.pixelHeight = info.pixelHeight
            return attributes
        }
        let now = Date()
        var headers: HeaderFields = [
            "Date": HTTPDate.string(from: now), "Content-Type": info.format.mimeType,
            "Last-Modified": HTTPDate.string(from: min(modified, now)),
        ]
        if let maxAge { headers.append("Cache-Control", "max-age=\(Int(maxAge))") }
        let stored = StoredResponse(status: 200, headers: headers, requestTime: now, responseTime: now)
        return EntryAttributes(
            expiresAt: CachePolicyEvaluator().expirationDate(of: stored), lastModified: headers["Last-Modified"],
            responseDate: now, responseHeaders: stored.encoded(), contentType: info.format.mimeType,
            format: info.format.rawValue, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight)
    }
}
