import Foundation
@testable import ImageFormats
import Testing

/// The CRC-32 and DEFLATE code behind PNG checks and SVGZ.
@Suite("CRC-32 and inflate")
struct CompressionTests {
    @Test("CRC-32 matches the standard check value and continues across calls")
    func crc32() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32.checksum(bytes[...]) == 0xCBF4_3926)
        #expect(CRC32.update(CRC32.checksum(bytes[..<4]), with: bytes[4...]) == 0xCBF4_3926)
        #expect(CRC32.checksum([][...]) == 0)
    }

    @Test("CRC-32 eight bytes at a time equals the bit-by-bit definition at every length and offset")
    func crc32Slicing() {
        func reference(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return ~crc
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<9 {
            for end in start...bytes.count where (end - start) < 40 || end % 37 == 0 {
                #expect(CRC32.checksum(bytes[start..<end]) == reference(bytes[start..<end]), "bytes \(start)..<\(end)")
            }
        }
        let split = 123
        #expect(CRC32.update(CRC32.checksum(bytes[..<split]), with: bytes[split...]) == reference(bytes[...]))
    }

    private func inflate(_ base64: String, limit: Int = 1 << 20) throws(InflateFailure) -> [UInt8] {
        let input = [UInt8](Data(base64Encoded: base64) ?? Data())
        var inflater = Inflater(input: input, start: 0, end: input.count, outputLimit: limit)
        try inflater.run()
        return inflater.output
    }

    @Test("stored, fixed-Huffman and back-reference blocks decode")
    func inflatesBlocks() throws {
        #expect(try inflate("AQcA+P9zdG9yZWQh") == Array("stored!".utf8))
        #expect(try inflate("7cJBEQAADAKgrGr/DquxBxzpoqqq/n4=") == Array(String(repeating: "abc", count: 1000).utf8))
        #expect(try inflate(Self.zeros) == Array(repeating: 0, count: 100_000))
    }

    @Test("the output limit stops a bomb; cut input and bad blocks are reported")
    func inflateFailures() {
        #expect(throws: InflateFailure.outputLimitReached) { try inflate(Self.zeros, limit: 1000) }
        #expect(throws: InflateFailure.needMoreInput) { try inflate("7cJBEQAADAKgrGr/") }
        #expect(throws: InflateFailure.malformed("a block has the reserved type 3")) { try inflate("Bw==") }
    }

    @Test("a gzip member checks its CRC and length; a prefix still yields its beginning")
    func gzipMember() throws {
        var bytes = [UInt8](try #require(Data(base64Encoded: SVGValidationTests.smallSVGZ)))
        let document = try GzipMember.decompress(bytes, outputLimit: 1 << 20)
        #expect(String(decoding: document, as: UTF8.self).hasPrefix("<svg"))
        #expect(GzipMember.decompressPrefix(Array(bytes.prefix(40)), outputLimit: 1 << 20)?.starts(with: Array("<svg".utf8)) == true)
        bytes[bytes.count - 5] ^= 0xFF  // The CRC-32 in the trailer.
        #expect(throws: InflateFailure.self) { try GzipMember.decompress(bytes, outputLimit: 1 << 20) }
    }

    /// 100,000 zero bytes, raw DEFLATE.
    static let zeros = "7cExAQAAAMKg9U9tDQ+gAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgFcD"
}
