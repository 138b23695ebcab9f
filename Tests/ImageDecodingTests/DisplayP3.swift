import Foundation

/// Display P3 (the P3 primaries, D65 white, sRGB's transfer curve), as an ICC profile built here
/// byte by byte, and the colour arithmetic that says what a P3 value is in sRGB.
enum DisplayP3 {
    /// The primaries adapted to the ICC's D50 white (Bradford), as display profiles record them.
    static let red = (0.515102, 0.241182, -0.001050)
    static let green = (0.291965, 0.692236, 0.041882)
    static let blue = (0.157153, 0.066582, 0.784083)
    static let d50 = (0.964203, 1.0, 0.824905)
    /// sRGB's primaries, D50-adapted the same way.
    static let sRGBRed = (0.436075, 0.222504, 0.013932)
    static let sRGBGreen = (0.385065, 0.716879, 0.097105)
    static let sRGBBlue = (0.143080, 0.060617, 0.714173)

    /// A version 2 matrix/TRC display profile: `desc`, `wtpt`, the three colorants and one
    /// parametric curve (type 3, sRGB's) shared by the three channels.
    static var profile: Data {
        func u32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func s15(_ value: Double) -> [UInt8] { u32(Int((value * 65536).rounded())) }
        func xyz(_ value: (Double, Double, Double)) -> [UInt8] {
            Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(value.0) + s15(value.1) + s15(value.2)
        }
        let name = Array("Display P3 (test)".utf8) + [0]
        let desc = Array("desc".utf8) + [0, 0, 0, 0] + u32(name.count) + name + u32(0) + u32(0) + [0, 0, 0] + [UInt8](repeating: 0, count: 67)
        let curve = Array("para".utf8) + [0, 0, 0, 0] + [0, 3, 0, 0]
            + s15(2.4) + s15(1 / 1.055) + s15(0.055 / 1.055) + s15(1 / 12.92) + s15(0.04045)
        let elements: [(String, [UInt8])] = [
            ("desc", desc), ("wtpt", xyz(d50)), ("rXYZ", xyz(red)), ("gXYZ", xyz(green)), ("bXYZ", xyz(blue)), ("rTRC", curve),
        ]
        let tagCount = elements.count + 2  // gTRC and bTRC share rTRC's data
        var offset = 128 + 4 + 12 * tagCount
        var table: [UInt8] = u32(tagCount)
        var data: [UInt8] = []
        var curveOffset = 0
        for (signature, bytes) in elements {
            var padded = bytes
            while padded.count % 4 != 0 { padded.append(0) }
            table += Array(signature.utf8) + u32(offset) + u32(bytes.count)
            if signature == "rTRC" { curveOffset = offset }
            data += padded
            offset += padded.count
        }
        for signature in ["gTRC", "bTRC"] { table += Array(signature.utf8) + u32(curveOffset) + u32(curve.count) }
        var header = u32(offset) + [0, 0, 0, 0] + [0x02, 0x10, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [UInt8](repeating: 0, count: 12) + Array("acsp".utf8) + [UInt8](repeating: 0, count: 24)
        header += s15(d50.0) + s15(d50.1) + s15(d50.2)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return Data(header + table + data)
    }

    /// What the 8-bit P3 value `colour` is in 8-bit sRGB (clipped to its gamut).
    static func inSRGB(_ colour: (UInt8, UInt8, UInt8)) -> (Double, Double, Double) {
        func linear(_ value: UInt8) -> Double {
            let v = Double(value) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        func encoded(_ value: Double) -> Double {
            let v = min(1, max(0, value))
            return 255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055)
        }
        let (r, g, b) = (linear(colour.0), linear(colour.1), linear(colour.2))
        let x = red.0 * r + green.0 * g + blue.0 * b
        let y = red.1 * r + green.1 * g + blue.1 * b
        let z = red.2 * r + green.2 * g + blue.2 * b
        // Solve sRGB's (column) matrix for (x, y, z) by Cramer's rule.
        let m = [[sRGBRed.0, sRGBGreen.0, sRGBBlue.0], [sRGBRed.1, sRGBGreen.1, sRGBBlue.1], [sRGBRed.2, sRGBGreen.2, sRGBBlue.2]]
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        func replacing(_ column: Int) -> [[Double]] {
            var a = m
            for row in 0..<3 { a[row][column] = [x, y, z][row] }
            return a
        }
        let d = det(m)
        return (encoded(det(replacing(0)) / d), encoded(det(replacing(1)) / d), encoded(det(replacing(2)) / d))
    }
}
