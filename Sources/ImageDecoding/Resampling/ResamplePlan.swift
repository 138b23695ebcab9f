/// The size a resample makes and the part of the source it covers: the image fitted into the
/// processing's box (each axis scaled to land on whole pixels), or scaled to cover the box and
/// cropped to its centre; never enlarged.
struct ResamplePlan {
    let outputWidth: Int
    let outputHeight: Int
    /// Output pixels per source pixel, across and down.
    let scaleX: Double
    let scaleY: Double
    /// Where the output starts in the source, in source pixels: a crop's margins.
    let offsetX: Double
    let offsetY: Double

    init(width: Int, height: Int, processing: ImageProcessing) {
        let (sourceWidth, sourceHeight) = (Double(width), Double(height))
        var crop = false
        var box = (width: width, height: height)
        switch processing {
        case .original: break
        case let .thumbnail(side): box = (side, side)
        case let .resized(boxWidth, boxHeight, mode):
            box = (boxWidth, boxHeight)
            crop = mode == .fill
        }
        if crop {
            let scale = min(1, max(Double(box.width) / sourceWidth, Double(box.height) / sourceHeight))
            outputWidth = min(box.width, width)
            outputHeight = min(box.height, height)
            (scaleX, scaleY) = (scale, scale)
            // Unscaled, a crop starts on a whole pixel: a half-pixel start would blur it.
            offsetX = scale == 1 ? Double((width - outputWidth) / 2) : (sourceWidth - Double(outputWidth) / scale) / 2
            offsetY = scale == 1 ? Double((height - outputHeight) / 2) : (sourceHeight - Double(outputHeight) / scale) / 2
        } else {
            let scale = min(1, Double(box.width) / sourceWidth, Double(box.height) / sourceHeight)
            outputWidth = min(box.width, width, max(1, Int((sourceWidth * scale).rounded())))
            outputHeight = min(box.height, height, max(1, Int((sourceHeight * scale).rounded())))
            scaleX = Double(outputWidth) / sourceWidth
            scaleY = Double(outputHeight) / sourceHeight
            (offsetX, offsetY) = (0, 0)
        }
    }

    /// Whether the output differs from the source at all.
    var changesImage: Bool { scaleX < 1 || scaleY < 1 || offsetX != 0 || offsetY != 0 }
}
