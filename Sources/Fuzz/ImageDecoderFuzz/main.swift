// libFuzzer target: what decodes untrusted bytes, in this process (so a fault is a finding): the
// validation for decoding with its budgets, then libvips' allowlisted loaders making a small
// thumbnail. Built with `tools/fuzz`, which also holds every input to a time and memory budget;
// an ordinary build makes a harmless executable.
import Foundation
import ImageDecoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let decoder = PlatformImageDecoder(isolation: .inProcess)
    _ = try? decoder.decode(data, processing: .thumbnail(maxPixelSize: 64), maxPixelCount: 16_000_000)
    return 0
}
