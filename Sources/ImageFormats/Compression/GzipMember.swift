/// One gzip member (RFC 1952): the wrapper SVGZ files put around a DEFLATE stream.
enum GzipMember {
    /// The two bytes every gzip member starts with.
    static let magic: [UInt8] = [0x1F, 0x8B]

    /// Whether `bytes` start like a gzip member using DEFLATE.
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 8
    }

    /// Decompresses a complete member, checking its CRC-32 and length trailer.
    static func decompress(_ bytes: [UInt8], outputLimit: Int) throws(InflateFailure) -> [UInt8] {
        var inflater = Inflater(input: bytes, start: try deflateStart(bytes), end: bytes.count, outputLimit: outputLimit)
        try inflater.run()
        let trailer = inflater.inputOffset
        guard bytes.count - trailer >= 8 else { throw .needMoreInput }
        let storedCRC = littleEndian32(bytes, at: trailer)
        let storedLength = littleEndian32(bytes, at: trailer + 4)
        guard storedCRC == CRC32.checksum(inflater.output[...]) else { throw .malformed("the CRC-32 of the decompressed data does not match") }
        guard storedLength == UInt32(truncatingIfNeeded: inflater.output.count) else {
            throw .malformed("the decompressed length does not match the trailer")
        }
        return inflater.output
    }

    /// Decompresses as much of a member's beginning as `bytes` hold, up to `outputLimit` bytes,
    /// for sniffing a prefix; nil when the header is broken or the stream is malformed.
    static func decompressPrefix(_ bytes: [UInt8], outputLimit: Int) -> [UInt8]? {
        guard let start = try? deflateStart(bytes) else { return nil }
        var inflater = Inflater(input: bytes, start: start, end: bytes.count, outputLimit: outputLimit)
        do {
            try inflater.run()
        } catch .malformed {
            return nil
        } catch {
            // Running out of input or reaching the limit still leaves a usable beginning.
        }
        return inflater.output
    }

    /// The index where the DEFLATE stream starts, after the header and its optional fields.
    private static func deflateStart(_ bytes: [UInt8]) throws(InflateFailure) -> Int {
        guard bytes.count >= 10 else { throw .needMoreInput }
        guard hasMagic(bytes) else { throw .malformed("not a gzip member using DEFLATE") }
        let flags = bytes[3]
        guard flags & 0xE0 == 0 else { throw .malformed("the gzip header sets reserved flags") }
        var offset = 10
        if flags & 0x04 != 0 {  // FEXTRA: a length-prefixed extra field
            guard bytes.count - offset >= 2 else { throw .needMoreInput }
            offset += 2 + (Int(bytes[offset]) | Int(bytes[offset + 1]) << 8)
        }
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: zero-terminated
            guard offset < bytes.count, let zero = bytes[offset...].firstIndex(of: 0) else { throw .needMoreInput }
            offset = zero + 1
        }
        if flags & 0x02 != 0 { offset += 2 }  // FHCRC
        guard offset <= bytes.count else { throw .needMoreInput }
        return offset
    }

    private static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { value, index in value | UInt32(bytes[offset + index]) << (8 * UInt32(index)) }
    }
}
