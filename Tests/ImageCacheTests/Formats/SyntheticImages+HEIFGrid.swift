extension SyntheticImages {
    /// An AVIF whose primary item is a `grid` of `rows` × `columns` tiles building `output` pixels
    /// while its `ispe` declares `declared`; the grid names one `tile`-sized coded item
    /// `references` times (rows × columns unless given), as a crafted file may. With `overlay`, the
    /// primary item is an `iovl` of `output` canvas drawing that item `references` times instead.
    static func avifGrid(
        output: (width: Int, height: Int), declared: (width: Int, height: Int), rows: Int, columns: Int,
        tile: (width: Int, height: Int), references: Int? = nil, overlay: Bool = false
    ) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { bigEndian32(8 + payload.count) + Array(type.utf8) + payload }
        func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        func infe(_ itemID: Int, _ type: String) -> [UInt8] { box("infe", [2, 0, 0, 0] + bigEndian16(itemID) + bigEndian16(0) + Array(type.utf8) + [0]) }
        func ispe(_ size: (width: Int, height: Int)) -> [UInt8] { fullBox("ispe", bigEndian32(size.width) + bigEndian32(size.height)) }
        let wide = output.width > 0xFFFF || output.height > 0xFFFF
        let sizeField: (Int) -> [UInt8] = { wide ? bigEndian32($0) : bigEndian16($0) }
        let referenceCount = references ?? rows * columns
        let gridData: [UInt8] = overlay
            ? [0, wide ? 1 : 0] + Array(repeating: 0, count: 8) + sizeField(output.width) + sizeField(output.height)
                + Array(Array(repeating: sizeField(0) + sizeField(0), count: referenceCount).joined())
            : [0, wide ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)] + sizeField(output.width) + sizeField(output.height)
        let tileData: [UInt8] = [0, 0, 0, 0]

        let ftyp = box("ftyp", Array("avif".utf8) + bigEndian32(0) + Array("avifmif1miaf".utf8))
        let hdlr = fullBox("hdlr", bigEndian32(0) + Array("pict".utf8) + Array(repeating: 0, count: 13))
        let pitm = fullBox("pitm", bigEndian16(1))
        let iinf = fullBox("iinf", bigEndian16(2) + infe(1, overlay ? "iovl" : "grid") + infe(2, "av01"))
        let iref = fullBox("iref", box("dimg", bigEndian16(1) + bigEndian16(referenceCount) + Array(repeating: bigEndian16(2), count: referenceCount).joined()))
        let ipco = box("ipco", ispe(declared) + ispe(tile))
        let ipma = fullBox("ipma", bigEndian32(2) + bigEndian16(1) + [1, 0x81] + bigEndian16(2) + [1, 0x82])
        func meta(dataOffset: Int) -> [UInt8] {
            let locations: [UInt8] = [0x44, 0x00] + bigEndian16(2)
                + bigEndian16(1) + bigEndian16(0) + bigEndian16(1) + bigEndian32(dataOffset) + bigEndian32(gridData.count)
                + bigEndian16(2) + bigEndian16(0) + bigEndian16(1) + bigEndian32(dataOffset + gridData.count) + bigEndian32(tileData.count)
            return fullBox("meta", hdlr + pitm + iinf + iref + box("iprp", ipco + ipma) + fullBox("iloc", locations))
        }
        let dataOffset = ftyp.count + meta(dataOffset: 0).count + 8
        return ftyp + meta(dataOffset: dataOffset) + box("mdat", gridData + tileData)
    }
}
