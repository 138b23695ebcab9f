import Foundation

extension Data {
    /// `count` bytes whose byte `i` is `start + i × step`, modulo 256: the storage tests' checkable
    /// entry bytes. Built from one 256-byte period and copied, because the tests build these bytes
    /// unoptimized for every entry they write or check, and a closure per byte is most of a run.
    public init(progression count: Int, start: Int, step: Int) {
        var period = [UInt8](repeating: 0, count: 256)
        var value = UInt8(truncatingIfNeeded: start)
        let increment = UInt8(truncatingIfNeeded: step)
        for index in 0..<256 {
            period[index] = value
            value &+= increment
        }
        var data = Data(capacity: count)
        period.withUnsafeBufferPointer { whole in
            while data.count < count {
                data.append(UnsafeBufferPointer(rebasing: whole.prefix(count - data.count)))
            }
        }
        self = data
    }
}
