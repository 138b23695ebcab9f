// libFuzzer target: the HTTP field parsers (Cache-Control, dates) and the stored-response
// decoder, on arbitrary bytes. Built with `tools/fuzz`.
import Foundation
import HTTPCaching

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeaders(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let text = String(decoding: data, as: UTF8.self)
    _ = CacheControl(text)
    _ = CacheControl(fieldValues: text.split(separator: "\n").map(String.init))
    _ = HTTPDate.parse(text)
    if let stored = StoredResponse(encoded: data) {
        // What decodes must encode again without trapping.
        _ = stored.encoded()
    }
    return 0
}
