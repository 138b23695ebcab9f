import Foundation

/// One file of the simulated disk: what is surely on it, and what came after its last sync.
final class SimulatedFile {
    enum Change {
        case write(offset: Int, bytes: [UInt8], forced: Bool)
        case truncate(size: Int)
    }

    private(set) var durable: [UInt8] = []
    var pending: [Change] = []

    func sync() {
        for change in pending { Self.apply(change, to: &durable) }
        pending = []
    }

    /// The durable contents with each pending sector write (and truncation) kept with chance
    /// `kept`; a sector that did not land reads back as `lost` says.
    func contents(
        keeping kept: Double, sectorSize: Int, lost: PowerLossSimulation.LostSectors, using random: inout SeededRandom
    ) -> [UInt8] {
        var contents = durable
        for change in pending {
            switch change {
            case .write(_, _, forced: true):
                Self.apply(change, to: &contents)
            case .truncate:
                if kept >= 1 || (kept > 0 && Double.random(in: 0..<1, using: &random) < kept) { Self.apply(change, to: &contents) }
            case let .write(offset, bytes, _):
                if kept >= 1 {
                    Self.apply(change, to: &contents)
                } else if kept <= 0 && lost == .previous {
                    continue
                } else {
                    Self.writeSectors(offset: offset, bytes: bytes, into: &contents, keeping: kept, sectorSize: sectorSize, lost: lost, using: &random)
                }
            }
        }
        return contents
    }

    /// One unsynced write, sector by sector (at the file's sector boundaries): each lands or not.
    private static func writeSectors(
        offset: Int, bytes: [UInt8], into contents: inout [UInt8], keeping kept: Double, sectorSize: Int,
        lost: PowerLossSimulation.LostSectors, using random: inout SeededRandom
    ) {
        let end = offset + bytes.count
        var start = offset
        while start < end {
            let sectorEnd = min(end, (start / sectorSize + 1) * sectorSize)
            let landed = kept > 0 && Double.random(in: 0..<1, using: &random) < kept
            var appearance = lost
            if !landed && lost == .garbage {
                appearance = [.previous, .zeros, .garbage][Int(random.next() % 3)]
            }
            if landed || appearance != .previous {
                grow(&contents, to: sectorEnd)
                contents.withUnsafeMutableBufferPointer { target in
                    for index in start..<sectorEnd {
                        switch (landed, appearance) {
                        case (true, _): target[index] = bytes[index - offset]
                        case (false, .zeros): target[index] = 0
                        default: target[index] = UInt8(truncatingIfNeeded: random.next())
                        }
                    }
                }
            }
            start = sectorEnd
        }
    }

    // Copies with memcpy: the tests are built without optimisation, where the generic
    // `replaceSubrange` goes element by element and building the states took most of the run.
    private static func apply(_ change: Change, to contents: inout [UInt8]) {
        switch change {
        case let .write(offset, bytes, _):
            guard !bytes.isEmpty else { return }
            grow(&contents, to: offset + bytes.count)
            contents.withUnsafeMutableBytes { target in
                bytes.withUnsafeBytes { source in
                    (target.baseAddress! + offset).copyMemory(from: source.baseAddress!, byteCount: source.count)
                }
            }
        case let .truncate(size):
            if size < contents.count {
                contents.removeLast(contents.count - size)
            } else {
                grow(&contents, to: size)
            }
        }
    }

    private static func grow(_ contents: inout [UInt8], to size: Int) {
        guard contents.count < size else { return }
        contents += [UInt8](repeating: 0, count: size - contents.count)
    }
}
