/// The size an SVG declares on its root: `width` and `height` in absolute units, else the `viewBox`,
/// else the 300x150 that browsers use for replaced elements without a size.
enum SVGIntrinsicSize {
    /// CSS pixels per unit (CSS Values 4: 96 px per inch).
    private static let pixelsPerUnit: [String: Double] = ["": 1, "px": 1, "pt": 96.0 / 72, "pc": 16, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96]
    private static let defaultSize = (width: 300.0, height: 150.0)
    /// Sizes are clamped here before becoming `Int`, so a huge value reaches the pixel limit instead of trapping.
    private static let largestSide = Double(Int32.max)

    /// The size in whole pixels from the root element's attributes.
    static func resolve(_ attributes: [(name: String, value: String)]) throws(ParseFailure) -> (width: Int, height: Int) {
        func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
        let width = try attribute("width").flatMap(absoluteLength)
        let height = try attribute("height").flatMap(absoluteLength)
        let viewBox = attribute("viewBox").flatMap(viewBoxSize)
        let size: (width: Double, height: Double)
        switch (width, height, viewBox) {
        case let (width?, height?, _): size = (width, height)
        case let (width?, nil, box?): size = (width, width * box.height / box.width)
        case let (nil, height?, box?): size = (height * box.width / box.height, height)
        case let (nil, nil, box?): size = box
        default: size = (width ?? defaultSize.width, height ?? defaultSize.height)
        }
        return (try pixels(size.width), try pixels(size.height))
    }

    /// The larger side of the root's `viewBox` in user units, 0 without a usable one.
    static func viewBoxExtent(_ attributes: [(name: String, value: String)]) -> Double {
        guard let box = attributes.first(where: { $0.name == "viewBox" }).flatMap({ viewBoxSize($0.value) }) else { return 0 }
        return max(box.width, box.height)
    }

    /// A length in CSS pixels, or nil when it is relative (`%`, `em`) or `auto`; negative or
    /// unparsable lengths make the document invalid.
    private static func absoluteLength(_ text: String) throws(ParseFailure) -> Double? {
        let trimmed = text.trimmingWhiteSpace()
        guard let number = leadingNumber(trimmed) else {
            if trimmed == "auto" || trimmed.isEmpty { return nil }
            throw .malformed("the root length '\(text.prefix(40))' is not a number")
        }
        let unit = trimmed[number.text.endIndex...].trimmingWhiteSpace()
        guard let factor = pixelsPerUnit[unit] else {
            if ["%", "em", "ex", "rem", "vw", "vh"].contains(unit) { return nil }
            throw .malformed("the root length '\(text.prefix(40))' has an unknown unit")
        }
        guard number.value >= 0 else { throw .malformed("the root length '\(text.prefix(40))' is negative") }
        return number.value * factor
    }

    /// The width and height of a `viewBox` (min-x min-y width height), or nil when it is not usable.
    private static func viewBoxSize(_ text: String) -> (width: Double, height: Double)? {
        let parts = text.split { $0 == "," || $0.isWhitespace }
        guard parts.count == 4, let width = Double(parts[2]), let height = Double(parts[3]),
              width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// The number at the start of `text` (sign, digits, fraction, exponent) and its spelling.
    ///
    /// One pass over the longest prefix the number grammar allows, parsed once: an exponent marker
    /// without digits is left out ("5em" is 5 and the unit "em"), and so is everything after the
    /// first character that cannot continue the number, so a run of dots costs one scan.
    private static func leadingNumber(_ text: String) -> (value: Double, text: Substring)? {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        func skipDigits() -> Bool {
            let first = index
            while index < scalars.endIndex, ("0"..."9").contains(scalars[index]) { index = scalars.index(after: index) }
            return index != first
        }
        if index < scalars.endIndex, scalars[index] == "+" || scalars[index] == "-" { index = scalars.index(after: index) }
        var sawDigit = skipDigits()
        if index < scalars.endIndex, scalars[index] == "." {
            index = scalars.index(after: index)
            sawDigit = skipDigits() || sawDigit
        }
        guard sawDigit else { return nil }
        var end = index
        if index < scalars.endIndex, scalars[index] == "e" || scalars[index] == "E" {
            index = scalars.index(after: index)
            if index < scalars.endIndex, scalars[index] == "+" || scalars[index] == "-" { index = scalars.index(after: index) }
            if skipDigits() { end = index }
        }
        let candidate = text[..<end]
        guard let value = Double(candidate), value.isFinite else { return nil }
        return (value, candidate)
    }

    /// Rounds a size to whole pixels the way the manifest does (half to even), at least 1.
    private static func pixels(_ value: Double) throws(ParseFailure) -> Int {
        guard value.isFinite, value > 0 else { throw .malformed("the root element declares a size of \(value)") }
        return max(1, Int(min(value, largestSide).rounded(.toNearestOrEven)))
    }
}
