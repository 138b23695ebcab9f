import CacheStorage
import Foundation
import TestSupport
import Testing

/// Variants (thumbnails the pipeline derived from an image) as an operator sees them: under their
/// original in `list` and `show`, counted in `stats`, and removed with their original by `purge`,
/// from another process than the one that keeps the cache open.
@Suite("cachectl and variants")
struct VariantTests {
    static func original(_ name: String) -> NewEntry {
        NewEntry(
            key: "https://cdn.example.com/\(name).jpg", data: Data(repeating: 7, count: 2000),
            attributes: EntryAttributes(format: "jpeg", pixelWidth: 400, pixelHeight: 300))
    }

    static func variant(of original: NewEntry, _ name: String, side: Int) -> NewEntry {
        NewEntry(
            key: original.key + " " + name, data: Data(repeating: 3, count: 300),
            attributes: EntryAttributes(format: "webp", pixelWidth: side, pixelHeight: side * 3 / 4),
            source: EntrySource(key: original.key, bytes: original.data))
    }

    @Test("list and show put variants under their original, stats counts them, purge of an original takes them")
    func underTheirOriginal() async throws {
        let folder = TemporaryDirectory("cachectl-variants")
        let path = ["--path", folder.url.path]
        let (first, second, plain) = (Self.original("a"), Self.original("b"), Self.original("c"))
        let firstVariants = [Self.variant(of: first, "max64", side: 64), Self.variant(of: first, "max256", side: 256)]
        let secondVariant = Self.variant(of: second, "max64", side: 64)
        // This process keeps the cache open throughout, as an app would.
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        try await store.put([first, second, plain] + firstVariants + [secondVariant])
        try await store.flush()

        let rows = try await Cachectl.run(["list", "--json"] + path).json([EntryRow].self)
        #expect(rows.map(\.key) == [first.key, firstVariants[1].key, firstVariants[0].key, second.key, secondVariant.key, plain.key])
        #expect(rows.map(\.source) == [nil, first.key, first.key, nil, second.key, nil])
        let text = try await Cachectl.run(["list"] + path)
        #expect(text.status == 0 && text.output.contains("↳ max64") && text.output.contains("6 entries (3 of them variants"), "\(text)")

        let shown = try await Cachectl.run(["show", first.key, "--json"] + path).json(ShowJSON.self)
        #expect(Set(shown.variants.map(\.key)) == Set(firstVariants.map(\.key)) && shown.source == nil)
        let variant = try await Cachectl.run(["show", secondVariant.key, "--json"] + path).json(ShowJSON.self)
        #expect(variant.source == second.key && variant.processing == "max64" && variant.variants.isEmpty)
        let variantText = try await Cachectl.run(["show", secondVariant.key] + path)
        #expect(variantText.output.contains("variant of") && variantText.output.contains("max64"), "\(variantText)")

        let stats = try await Cachectl.run(["stats", "--json"] + path).json(StatsJSON.self)
        #expect(stats.entries == 6 && stats.variantEntries == 3 && stats.variantBytes == 900)

        let dryRun = try await Cachectl.run(["purge", "--dry-run", "--json", "--larger-than", "1000"] + path).json(PurgeJSON.self)
        #expect(dryRun.entries == 6 && dryRun.bytes == 6900, "the originals and their variants")

        let purge = try await Cachectl.run(["purge", "--json", "--prefix", "https://cdn.example.com/a"] + path)
        #expect(purge.status == 0, "\(purge)")
        let report = try purge.json(PurgeJSON.self)
        #expect(report.entries == 3 && report.bytes == 2600 && report.remainingEntries == 3, "\(purge)")
        // Seen from the process that kept the cache open.
        #expect(try !store.contains(first.key) && !firstVariants.contains { try store.contains($0.key) })
        #expect(try store.get(secondVariant.key, derivedFrom: second.key) != nil)
    }
}
