extension DecodedImage {
    /// The mean difference per colour channel between this image and `other`, of the same size, in
    /// 8-bit levels: how the suites hold one way of making an image to another.
    package func meanColourDifference(to other: DecodedImage) -> Double {
        precondition(pixelWidth == other.pixelWidth && pixelHeight == other.pixelHeight, "images of different sizes")
        var total = 0
        for y in 0..<pixelHeight {
            for x in 0..<pixelWidth {
                let (a, b) = (pixel(x: x, y: y), other.pixel(x: x, y: y))
                total += abs(Int(a.0) - Int(b.0)) + abs(Int(a.1) - Int(b.1)) + abs(Int(a.2) - Int(b.2))
            }
        }
        return Double(total) / Double(pixelWidth * pixelHeight * 3)
    }
}
