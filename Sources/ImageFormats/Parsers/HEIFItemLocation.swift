/// Where a HEIF item's data lies, from `iloc`: in the file, in `idat`, or made from other items.
struct HEIFItemLocation {
    /// 0: offsets into the file; 1: offsets into `idat`; 2: made from other items.
    var constructionMethod: Int
    /// The extents in order, as offsets and lengths (a length of 0 runs to the end).
    var extents: [(start: UInt64, length: UInt64)] = []

    /// The first `count` bytes of the item's data (fewer when it is shorter), from `file` or `itemData`.
    func prefix(_ count: Int, file: [UInt8], itemData: ByteReader?) -> [UInt8] {
        let (source, base, end): ([UInt8], Int, Int)
        switch constructionMethod {
        case 0: (source, base, end) = (file, 0, file.count)
        case 1:
            guard let itemData else { return [] }
            (source, base, end) = (itemData.bytes, itemData.offset, itemData.end)
        default: return []
        }
        var bytes: [UInt8] = []
        for (start, length) in extents where bytes.count < count {
            guard start <= UInt64(end - base) else { break }
            let from = base + Int(start)
            let available = end - from
            let take = min(count - bytes.count, length == 0 ? available : Int(min(length, UInt64(available))))
            bytes += source[from..<(from + take)]
        }
        return bytes
    }
}
