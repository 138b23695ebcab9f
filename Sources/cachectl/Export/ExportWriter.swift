import CacheStorage
import CacheArchive
import Foundation
import HTTPCaching
import ImageDecoding
import ImageFormats

/// Reads entries from the store and writes each as a file in the export folder, with a preview
/// beside it when asked (for the gallery).
struct ExportWriter {
    /// What an export wrote.
    struct Written {
        var manifest: [ManifestEntry]
        /// Entries listed but removed by another process before their bytes were read.
        var vanished: Int
        /// Keys of entries whose bytes are damaged on disk: not exported (and removed from the
        /// store, unless it is read-only).
        var damaged: [String]
        /// Each exported file's preview, by file name: a thumbnail any browser shows.
        var previews: [String: String]
    }

    let folder: ExportFolder
    let now: Date
    /// Whether to write previews.
    let previews: Bool
    private let validator = ImageValidator()

    init(folder: ExportFolder, now: Date, previews: Bool = false) {
        self.folder = folder
        self.now = now
        self.previews = previews
    }

    /// Writes one file per entry still present (and its preview, when asked).
    func write(_ entries: [EntryMetadata], from store: PersistentStore) async throws -> Written {
        var namer = ExportFileNamer()
        var manifest: [ManifestEntry] = []
        var previewFiles: [String: String] = [:]
        var vanished = 0
        var damaged: [String] = []
        let progress = ProgressBar(label: "export", total: entries.count)
        defer { progress.finish() }
        for listed in entries {
            // The listing came from the index; another process may have removed or replaced the
            // entry since, so the bytes and the metadata that vouches for them are read together.
            let entry: CachedEntry
            switch try store.peekReportingDamage(listed.key) {
            case let .found(found):
                entry = found
            case .absent:
                vanished += 1
                progress.advance()
                continue
            case .damaged:
                damaged.append(listed.key)
                progress.advance()
                continue
            }
            let image = describe(entry)
            let name = namer.name(for: entry.metadata.key, fileExtension: image.format?.fileExtension ?? "bin")
            try folder.write(entry.data, named: name)
            manifest.append(manifestEntry(entry, file: name, image: image))
            if previews, let preview = await Self.preview(of: entry.data) {
                // Named like an entry (by the namer, from a key no entry has), so never another file's name.
                let previewName = namer.name(for: entry.metadata.key + "\u{0}preview", fileExtension: preview.format.rawValue)
                try folder.write(preview.bytes, named: previewName)
                previewFiles[name] = previewName
            }
            progress.advance(bytes: entry.data.count)
        }
        return Written(manifest: manifest, vanished: vanished, damaged: damaged, previews: previewFiles)
    }

    /// The largest side of a preview, in pixels: twice a gallery card's image, for dense screens.
    static let previewPixelSize = 340

    /// A thumbnail of `data` through the platform decoder, as JPEG (PNG where there is alpha):
    /// every format the decoder reads (TIFF, HEIC, AVIF, ICO …) becomes one a browser shows, and an
    /// SVG is shown as pixels, its script never run. Decoded as the pipeline decodes what it fetched
    /// (in a decode worker process on Linux) and on the decoding queue, never on Swift's cooperative
    /// pool, which a worker's answer would otherwise hold. Nil for bytes that do not decode.
    static func preview(of data: Data) async -> (bytes: Data, format: EncodedFormat)? {
        guard
            let image = try? await PlatformImageDecoder().decodeOffPool(
                data, processing: .thumbnail(maxPixelSize: previewPixelSize), maxPixelCount: ImageValidator().maxPixelCount)
        else { return nil }
        let format = EncodedFormat.choice(for: image)
        guard
            let bytes = try? await DecodingQueue.shared.run({ () throws(ImageDecodingError) -> Data in
                try PlatformImageEncoder().encode(image, as: format, quality: 80)
            })
        else { return nil }
        return (bytes, format)
    }

    /// The format and pixel size the bytes show, falling back to what was recorded with them.
    private func describe(_ entry: CachedEntry) -> (format: ImageFormat?, width: Int?, height: Int?) {
        let attributes = entry.metadata.attributes
        if let info = try? validator.headerInfo(entry.data) {
            return (info.format, info.pixelWidth, info.pixelHeight)
        }
        let format = validator.sniff(entry.data) ?? attributes.format.flatMap(ImageFormat.init(rawValue:))
        return (format, attributes.pixelWidth, attributes.pixelHeight)
    }

    private func manifestEntry(
        _ entry: CachedEntry, file: String, image: (format: ImageFormat?, width: Int?, height: Int?)
    ) -> ManifestEntry {
        let metadata = entry.metadata
        let attributes = metadata.attributes
        return ManifestEntry(
            key: metadata.key, file: file, bytes: entry.data.count, format: image.format?.rawValue,
            width: image.width, height: image.height, storedAt: metadata.storedAt, lastAccess: metadata.lastAccess,
            etag: attributes.etag, expires: attributes.expiresAt, lastModified: attributes.lastModified,
            contentType: attributes.contentType, responseDate: attributes.responseDate,
            storedResponse: attributes.responseHeaders.map { StoredResponse.withoutCredentials(encoded: $0) ?? $0 }?
                .base64EncodedString(),
            freshness: FreshnessVerdict.state(of: metadata, now: now))
    }
}
