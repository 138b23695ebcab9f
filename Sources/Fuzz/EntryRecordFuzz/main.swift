// libFuzzer target: the entry record decoder, which reads what LMDB holds beside each blob
// (damage or another version's bytes must read as nil, never trap), and the split of a record log
// value into the record and the entry's bytes that follow it. Built with `tools/fuzz`.
import CacheStorage
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntryRecord(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: bytes, count: count)
    _ = EntryRecord.decode(buffer)
    _ = EntryRecord.key(in: buffer)
    // The two parts are the value, cut once: never a byte outside it, none twice.
    let (record, following) = EntryRecord.split(logged: buffer)
    if let following {
        precondition(record.baseAddress == buffer.baseAddress && record.count + following.count == count)
        precondition(following.count == 0 || following.baseAddress == UnsafeRawPointer(bytes + record.count))
    } else {
        precondition(record.count == count)
    }
    _ = EntryRecord.decode(record)
    return 0
}
