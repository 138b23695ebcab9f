// libFuzzer target: an export's manifest.json as `cachectl import` reads it — decoding, the
// check that every named file stays inside the folder, and the attributes an entry restores
// (damage must be a decoding error or a refused path, never a trap). Built with `tools/fuzz`.
import CacheArchive
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let entries = try? Manifest.decode(Data(bytes: bytes, count: count)) else { return 0 }
    for entry in entries {
        // What it returns is inside by construction; the import tests prove the refusals.
        _ = Manifest.containedPath(entry.file, inside: "/export")
        _ = entry.attributes
    }
    // What was read writes back.
    _ = try? Manifest.encode(entries)
    return 0
}
