// libFuzzer target: what decodes untrusted bytes, in this process (so a fault is a finding): the
// validation for decoding with its budgets, then libvips' allowlisted loaders making a small
// thumbnail. Built with `tools/fuzz`, which also holds every input to a time and memory budget;
// an ordinary build makes a harmless executable.
import Foundation
import ImageDecoding
import ImageFormats

/// SVG text is held to 1 MiB here, not the validator's 8 MiB: the time oracle is about what the
/// decoders do, and the validator's own linear pass over 8 MiB of inflated text costs seconds in
/// this unoptimised, sanitised build (a fiftieth of that in a release build).
let svgGate = ImageValidator(maxPixelCount: 16_000_000, svgByteLimit: 1 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard (try? svgGate.validate(data)) != nil else { return 0 }
    let decoder = PlatformImageDecoder(isolation: .inProcess)
    _ = try? decoder.decode(data, processing: .thumbnail(maxPixelSize: 64), maxPixelCount: 16_000_000)
    return 0
}
