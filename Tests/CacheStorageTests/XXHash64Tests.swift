import Foundation
import Testing

@testable import CacheStorage

@Suite("XXHash64")
struct XXHash64Tests {
    @Test("matches the published test vectors")
    func vectors() {
        #expect(XXHash64.hash("") == 0xEF46_DB37_51D8_E999)
        #expect(XXHash64.hash("a") == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXHash64.hash("abc") == 0x44BC_2CF5_AD77_0999)
        #expect(XXHash64.hash("Nobody inspects the spammish repetition") == 0xFBCE_A83C_8A37_8BF1)
    }

    @Test("a flipped byte anywhere changes the hash")
    func sensitivity() {
        var bytes = [UInt8](repeating: 7, count: 1000)
        let original = bytes.withUnsafeBytes { XXHash64.hash($0) }
        for position in [0, 31, 32, 500, 996, 999] {
            bytes[position] ^= 1
            #expect(bytes.withUnsafeBytes { XXHash64.hash($0) } != original)
            bytes[position] ^= 1
        }
    }
}
