/// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG chunks and gzip members carry.
///
/// Computed eight bytes at a time ("slicing-by-8": eight 256-entry tables, the k-th giving a byte's
/// contribution k positions further on): byte at a time, checking a large PNG's chunks cost more
/// than fetching it over loopback.
enum CRC32 {
    /// Eight tables of 256 entries, one after another.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
            }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        update(0, with: bytes)
    }

    /// Continues `crc` (the checksum of earlier bytes, 0 at first) with `bytes`.
    static func update(_ crc: UInt32, with bytes: ArraySlice<UInt8>) -> UInt32 {
        var value = ~crc
        // Buffer pointers keep this loop fast in debug builds too, where the validator checks
        // megabytes of PNG chunks; every index stays within its buffer's count.
        tables.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { bytes in
                var index = 0
                while bytes.count - index >= 8 {
                    let low =
                        value ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                            | UInt32(bytes[index + 3]) << 24)
                    let high =
                        UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8 | UInt32(bytes[index + 6]) << 16
                        | UInt32(bytes[index + 7]) << 24
                    value =
                        table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                        ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                        ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                        ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                    index += 8
                }
                while index < bytes.count {
                    value = table[Int((value ^ UInt32(bytes[index])) & 0xFF)] ^ (value >> 8)
                    index += 1
                }
            }
        }
        return ~value
    }
}
