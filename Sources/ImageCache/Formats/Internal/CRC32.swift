/// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG chunks and gzip members carry.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        update(0, with: bytes)
    }

    /// Continues `crc` (the checksum of earlier bytes, 0 at first) with `bytes`.
    static func update(_ crc: UInt32, with bytes: ArraySlice<UInt8>) -> UInt32 {
        var value = ~crc
        // Buffer pointers keep this loop fast in debug builds too, where the validator checks
        // megabytes of PNG chunks; both buffers are iterated strictly within their counts.
        table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { bytes in
                for byte in bytes {
                    value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
                }
            }
        }
        return ~value
    }
}
