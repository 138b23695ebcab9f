import CacheStorage
import Foundation
import HTTPCaching
import ImageFormats

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
        for unread in source.unread {
            report.refused.append(.init(file: unread.relativePath, stage: unread.stage, reason: unread.reason))
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
        // The kind was checked when the folder was read; ImportFile checks it again on the open
        // descriptor, so a file replaced by a FIFO since is refused, not waited on.
        let data: Data, modified: Date
        do throws(ImportFile.ReadFailure) {
            (data, modified) = try ImportFile.read(item.file, maxBytes: configuration.maxEntryBytes)
        } catch {
            switch error {
            case let .notRegular(kind):
                return refuse("read", "\(kind.name), not a regular file; only regular files are imported, and it was not read")
            case let .tooLarge(byteCount):
                return refuse("store", StorageError.entryTooLarge(key: item.key, byteCount: byteCount, limit: configuration.maxEntryBytes).description)
            case let .unreadable(reason):
                return refuse("read", "could not read the file (\(reason)); check its permissions")
            }
        }
        let info: ImageInfo
        do {
            info = try validator.validate(data)
        } catch {
            return refuse("\(error.stage)", error.description)
        }
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
