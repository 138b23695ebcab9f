// libFuzzer target: every format's validation and the prefix inspection a download runs, on
// arbitrary bytes. Built with `tools/fuzz`; an ordinary build makes a harmless executable.
import Foundation
import ImageFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageValidator(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let validator = ImageValidator()
    _ = try? validator.validate(data)
    _ = validator.inspectPrefix(data)
    _ = validator.sniff(data)
    return 0
}
