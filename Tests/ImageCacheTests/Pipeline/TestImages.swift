import Foundation
import LoopbackOrigin

/// Real images the pipeline suites make themselves, so they run on a clone without `../shared`.
enum TestImages {
    /// A 32×32 RGB PNG, different for each seed.
    static func png(seed: Int) -> Data {
        PNGEncoder.encode(width: 32, height: 32) { x, y in
            (UInt8(truncatingIfNeeded: x * 8 + seed), UInt8(truncatingIfNeeded: y * 8), UInt8(truncatingIfNeeded: seed * 40))
        }
    }
}
