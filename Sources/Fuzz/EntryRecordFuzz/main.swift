// libFuzzer target: the entry record decoder, which reads what LMDB holds beside each blob
// (damage or another version's bytes must read as nil, never trap). Built with `tools/fuzz`.
import CacheStorage
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntryRecord(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: bytes, count: count)
    _ = EntryRecord.decode(buffer)
    _ = EntryRecord.key(in: buffer)
    return 0
}
