/// How many vertices a shape has, where its markers are drawn: an upper bound read from its
/// geometry without parsing it, so a shape never draws more markers than it is counted for.
enum SVGVertexCount {
    /// The vertices `attribute` gives a shape named `shape`: a path's `d` counts every number (a
    /// horizontal or vertical segment takes one number per vertex), a polyline's or polygon's
    /// `points` one vertex per pair; 0 for other attributes.
    static func of(shape: String, attribute: String, value: String) -> Int {
        switch (shape, attribute) {
        case ("path", "d"): numberCount(value)
        case ("polyline", "points"), ("polygon", "points"): (numberCount(value) + 1) / 2
        default: 0
        }
    }

    /// The numbers written in `text`, in one pass: `1.5.5` is two numbers, `1e-5` one.
    static func numberCount(_ text: String) -> Int {
        var count = 0
        var inNumber = false, sawDot = false, inExponent = false
        var previous: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if !inNumber { count += 1; inNumber = true; sawDot = false; inExponent = false }
            case UInt8(ascii: "."):
                if !inNumber || sawDot || inExponent { count += 1; inNumber = true; inExponent = false }
                sawDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if inNumber { inExponent = true } else { inNumber = false }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if !(inExponent && (previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E"))) { inNumber = false }
            default:
                inNumber = false
            }
            previous = byte
        }
        return count
    }
}
