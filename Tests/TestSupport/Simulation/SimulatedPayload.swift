import CacheStorage
import Foundation

/// The bytes and attributes the simulation stores, computed from a key, a generation and a length,
/// so the test's model, the test process and the second process agree on them without sending them.
public enum SimulatedPayload {
    /// `length` bytes, different for every key and generation.
    public static func bytes(key: String, generation: UInt32, length: Int) -> Data {
        var random = SeededRandom(seed: keySeed(key) ^ (UInt64(generation) << 32 | UInt64(length)))
        var data = Data(count: length)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            // Eight bytes at a time: the tests run unoptimised, and byte loops dominated them.
            var index = 0
            while index + 8 <= length {
                buffer.storeBytes(of: random.next().littleEndian, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            var word = random.next()
            while index < length {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return data
    }

    /// The attributes a put of `generation` records; an update replaces the content type with one
    /// naming `tag`. Every fifth generation is already expired, so eviction takes those first.
    public static func attributes(generation: UInt32, tag: UInt32? = nil) -> EntryAttributes {
        EntryAttributes(
            expiresAt: generation % 5 == 0 ? Date(timeIntervalSince1970: 1_000_000) : nil,
            etag: "g\(generation)",
            contentType: tag.map { "image/x-tag\($0)" } ?? "image/x-sim")
    }

    /// The entry a put writes; `source` names what a derived entry was made from.
    public static func entry(_ put: SimulatedPut, source: EntrySource? = nil) -> NewEntry {
        NewEntry(
            key: put.key, data: bytes(key: put.key, generation: put.generation, length: put.length),
            attributes: attributes(generation: put.generation), source: source)
    }

    /// The source of a derived entry: `key` holding generation `generation` of `length` bytes.
    public static func source(key: String, generation: UInt32, length: Int) -> EntrySource {
        EntrySource(key: key, bytes: bytes(key: key, generation: generation, length: length))
    }

    private static func keySeed(_ key: String) -> UInt64 {
        key.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
