import ImageDecoding
import Testing

/// Every pixel of `image` against `expected`, one issue per differing pixel (at most five).
func expectPixels(_ image: DecodedImage, _ expected: ExpectedImage, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect((image.pixelWidth, image.pixelHeight) == (expected.width, expected.height), "\(name)", sourceLocation: sourceLocation)
    guard (image.pixelWidth, image.pixelHeight) == (expected.width, expected.height) else { return }
    var differences = 0
    for y in 0..<expected.height {
        for x in 0..<expected.width {
            let (r, g, b, a) = image.pixel(x: x, y: y)
            let actual = RGBA(r: r, g: g, b: b, a: a)
            guard actual != expected[x, y] else { continue }
            differences += 1
            if differences <= 5 {
                Issue.record("\(name) at (\(x), \(y)): \(actual), expected \(expected[x, y])", sourceLocation: sourceLocation)
            }
        }
    }
}
