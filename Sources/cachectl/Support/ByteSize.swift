import Foundation

/// Byte counts as people write them on the command line (`5MB`, `1.5GiB`, `800`) and read them
/// in reports (`1.8 GB`).
///
/// Units: `B`, `KB`, `MB`, `GB`, `TB` are powers of 1,000 (as disks and `ls -h --si` count);
/// `KiB`, `MiB`, `GiB`, `TiB` are powers of 1,024. Case does not matter; a bare number is bytes.
enum ByteSize {
    private static let units: [String: Double] = [
        "": 1, "b": 1,
        "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
        "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
    ]

    /// The byte count `text` names.
    /// - Throws: ``ArgumentFormatError`` with an example of the expected form.
    static func parse(_ text: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let numberPart = trimmed.prefix { $0.isNumber || $0 == "." }
        let unitPart = trimmed.dropFirst(numberPart.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let number = Double(numberPart), number >= 0, let scale = units[unitPart],
            number * scale < Double(Int.max / 2)
        else {
            throw ArgumentFormatError("'\(text)' is not a size; write it like 800, 5MB, 1.5GB or 512MiB")
        }
        return Int((number * scale).rounded())
    }

    /// `byteCount` for people: `812 B`, `93.2 KB`, `1.8 GB` (powers of 1,000).
    static func format(_ byteCount: Int) -> String {
        let value = Double(byteCount)
        guard abs(value) >= 1000 else { return "\(byteCount) B" }
        for (unit, scale) in [("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)] where abs(value) < scale * 1000 {
            let scaled = value / scale
            return String(format: abs(scaled) < 100 ? "%.1f %@" : "%.0f %@", scaled, unit)
        }
        return String(format: "%.1f PB", value / 1e15)
    }
}

/// A command-line value in the wrong form; its sentence shows the right one.
struct ArgumentFormatError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
