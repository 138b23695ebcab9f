/// The frame headers at the start of WebP's two bitstreams, which carry the pixel size.
enum WebPBitstream {
    /// The size a VP8 (lossy) or VP8L (lossless) bitstream declares.
    ///
    /// - Parameters:
    ///   - fourCC: `VP8 ` or `VP8L`.
    ///   - reader: positioned at the start of the chunk's payload; only its first bytes are read.
    ///   - chunkSize: the payload length the chunk declares, to check the first partition fits.
    static func size(fourCC: String, _ reader: ByteReader, chunkSize: Int) throws(ParseFailure) -> (width: Int, height: Int) {
        var reader = reader
        if fourCC == "VP8L" {
            guard try reader.readUInt8() == 0x2F else { throw .malformed("the VP8L signature byte is missing") }
            let bits = try reader.readUInt32(.littleEndian)
            guard bits >> 29 == 0 else { throw .malformed("the VP8L version is \(bits >> 29), not 0") }
            return (Int(bits & 0x3FFF) + 1, Int(bits >> 14 & 0x3FFF) + 1)
        }
        let frameTag = try reader.readUInt24(.littleEndian)
        guard frameTag & 1 == 0 else { throw .malformed("the VP8 bitstream does not start with a key frame") }
        guard try reader.readBytes(3).elementsEqual([0x9D, 0x01, 0x2A]) else { throw .malformed("the VP8 start code is missing") }
        let firstPartitionSize = Int(frameTag >> 5)
        guard firstPartitionSize <= chunkSize - 10 else {
            throw .malformed("the VP8 first partition (\(firstPartitionSize) bytes) is larger than its chunk")
        }
        // The top two bits of each dimension are an upscaling hint, not part of the size.
        let width = Int(try reader.readUInt16(.littleEndian) & 0x3FFF)
        let height = Int(try reader.readUInt16(.littleEndian) & 0x3FFF)
        guard width > 0, height > 0 else { throw .malformed("the VP8 frame is \(width)x\(height)") }
        return (width, height)
    }
}
