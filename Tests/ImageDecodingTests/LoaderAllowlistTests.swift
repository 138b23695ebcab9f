#if canImport(CVips)
import Foundation
import ImageDecoding
import Testing

/// libvips runs only the loaders the pipeline chose: BMP and icons, which it would hand to
/// ImageMagick, are decoded in Swift while ImageMagick's loader stays blocked.
@Suite("libvips loader allowlist")
struct LoaderAllowlistTests {
    @Test("of all libvips' loaders, only the allowlisted ones may run")
    func onlyAllowlisted() throws {
        let loaders = try VipsRuntime.loaders()
        let runnable = Set(loaders.filter { !$0.isBlocked }.map(\.nickname))
        let present = Set(loaders.map(\.nickname))
        #expect(runnable == Set(VipsRuntime.allowedLoaders).intersection(present))
        // The formats the pipeline decodes with libvips all have their loader here.
        #expect(runnable.isSuperset(of: ["jpegload_buffer", "pngload_buffer", "webpload_buffer", "gifload_buffer", "tiffload_buffer"]))
        for magick in ["magickload", "magickload_buffer"] where present.contains(magick) {
            #expect(!runnable.contains(magick))
        }
    }

    @Test("the loader libvips would pick for BMP and icon bytes is ImageMagick's, blocked; they decode all the same")
    func bitmapsBypassImageMagick() async throws {
        let bmp = BMPLayout.rgb24.sample.file
        let icon = GeneratedBitmaps.icon([ICODecodingTests.smallEntry])
        for (name, file) in [("BMP", bmp), ("icon", icon)] {
            if let loader = try VipsRuntime.loader(for: file) {
                #expect(loader.nickname.hasPrefix("magickload") && loader.isBlocked, "\(name): \(loader)")
            }
            let image = try await PlatformImageDecoder().decodeOffPool(file, processing: .thumbnail(maxPixelSize: 2), maxPixelCount: 1_000)
            #expect(image.pixelWidth == 2, "\(name)")
        }
        let png = try #require(try VipsRuntime.loader(for: GeneratedImages.png(width: 2, height: 2) { _, _ in (1, 2, 3) }))
        #expect(png.nickname == "pngload_buffer" && !png.isBlocked)
    }
}
#endif
