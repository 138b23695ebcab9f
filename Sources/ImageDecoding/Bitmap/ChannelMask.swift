/// One channel of a packed bitmap pixel: the bits under its mask, scaled to 8 bits (a 5-bit 31 is
/// 255), whatever the mask's width. A zero mask is a channel the pixels do not have: it reads 0.
struct ChannelMask {
    private let mask: UInt32
    private let shift: UInt32
    /// The largest value the mask holds once shifted down.
    private let maximum: UInt32

    init(_ mask: UInt32) {
        self.mask = mask
        shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
        maximum = mask >> shift
    }

    /// The channel's value in `pixel`, 0 to 255.
    func value(in pixel: UInt32) -> UInt8 {
        // Masked and shifted, the value is at most `maximum`, so the scaled one is at most 255.
        let raw = (pixel & mask) >> shift
        switch maximum {
        case 0: return 0
        case 255: return UInt8(raw)
        default: return UInt8((UInt64(raw) * 255 + UInt64(maximum / 2)) / UInt64(maximum))
        }
    }
}
