/// The check on a GIF frame's LZW-compressed pixels that only decoding makes: every code is one the
/// decoder's table holds (or the one it is about to add). A lenient decoder stops at a bad code and
/// shows a partial frame; refused here instead.
enum GIFImageData {
    /// Checks the concatenated sub-blocks `data` of frame `number`, compressed with `minimumCodeSize`.
    static func check(_ data: [UInt8], minimumCodeSize: Int, number: Int) throws(ParseFailure) {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var previous: Int?
        var bitBuffer = 0
        var bitCount = 0
        var index = 0
        while true {
            while bitCount < codeSize, index < data.count {
                bitBuffer |= Int(data[index]) << bitCount
                bitCount += 8
                index += 1
            }
            // Data that ends without an end code is common and harmless: decoders stop there too.
            guard bitCount >= codeSize else { return }
            let code = bitBuffer & ((1 << codeSize) - 1)
            bitBuffer >>= codeSize
            bitCount -= codeSize
            if code == clear {
                (codeSize, next, previous) = (minimumCodeSize + 1, clear + 2, nil)
                continue
            }
            if code == end { return }
            guard previous != nil else {
                guard code < clear else { throw .malformed("frame \(number)'s LZW data starts with code \(code), not a colour") }
                previous = code
                continue
            }
            guard code <= next else {
                throw .malformed("frame \(number)'s LZW data holds the invalid code \(code) (the table holds \(next))")
            }
            if next < 4096 {
                next += 1
                if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
    }
}
