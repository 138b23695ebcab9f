/// Bounds on the filter parameters whose cost grows with their value at every pixel of the filter
/// region: a few bytes of attribute can ask for minutes of rendering, and nothing in the element
/// count shows it. Each bound sits well above what visible effects use.
enum SVGFilterBounds {
    /// The most octaves of `feTurbulence` noise: 10. Each octave halves the one before, so beyond
    /// about eight they change no 8-bit colour, while each costs a full pass over the region.
    static let maxTurbulenceOctaves = 10
    /// The largest `feConvolveMatrix` kernel side (`order`): 9. Each output pixel reads order²
    /// input pixels; real kernels are 3×3 or 5×5.
    static let maxConvolveOrder = 9
    /// The largest `feMorphology` radius: 10. Each output pixel reads (2 × radius + 1)² input
    /// pixels; outlines and thickening use a few.
    static let maxMorphologyRadius = 10

    /// Refuses the filter primitive `name` when one of its parameters is over its bound; a blur's
    /// `stdDeviation` may not exceed `extent`, the document's larger side in user units, past
    /// which a blur is a flat colour that still costs its full kernel.
    static func check(_ name: String, attributes: [(name: String, value: String)], extent: Double) throws(ParseFailure) {
        for (attribute, value) in attributes {
            switch (name, attribute) {
            case ("feTurbulence", "numOctaves"):
                try bound(value, by: Double(maxTurbulenceOctaves), "feTurbulence numOctaves", "octaves")
            case ("feConvolveMatrix", "order"):
                try bound(value, by: Double(maxConvolveOrder), "feConvolveMatrix order", "kernel side")
            case ("feMorphology", "radius"):
                try bound(value, by: Double(maxMorphologyRadius), "feMorphology radius", "radius")
            case ("feGaussianBlur", "stdDeviation"), ("feDropShadow", "stdDeviation"):
                try bound(value, by: max(extent, 1), "\(name) stdDeviation", "deviation (the document's larger side)")
            default:
                break
            }
        }
    }

    /// Refuses `value` when any number in it is over `limit`; text that is not a number is left to
    /// the renderer, which ignores it.
    private static func bound(_ value: String, by limit: Double, _ what: String, _ noun: String) throws(ParseFailure) {
        for part in value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            guard let number = Double(part), !number.isNaN else { continue }
            guard number <= limit else {
                let shown = limit.rounded() == limit ? String(Int(limit)) : String(limit)
                throw .refused(.refusedContent(
                    format: .svg, reason: "its \(what) is \(part.prefix(40)), over the largest \(noun) rendered, \(shown)"))
            }
        }
    }
}
