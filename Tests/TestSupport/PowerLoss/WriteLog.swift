import Foundation

/// What `write-recorder.c` (Tests/Fixtures/PowerLoss) recorded of one process's changes to the
/// files under a folder, in the order the kernel saw them.
public struct WriteLog: Sendable {
    /// One recorded change. Paths are absolute, as the process opened them.
    public enum Operation: Sendable {
        case create(path: String)
        /// `durable`: written through an `O_SYNC`/`O_DSYNC` descriptor, so on disk once it returned.
        case write(path: String, offset: Int, bytes: [UInt8], durable: Bool)
        case truncate(path: String, size: Int)
        /// `fsync` or `fdatasync` returned: everything written to the file before is on disk.
        case sync(path: String)
        case rename(from: String, to: String)
        /// `renameat2` with `RENAME_EXCHANGE`: the two names swap their files.
        case exchange(String, String)
        /// A second name for a file (`linkat`).
        case link(from: String, to: String)
        case unlink(path: String)
        case makeFolder(path: String)
        case removeFolder(path: String)
        /// What the process wrote to its mark descriptor (a worker's `ack …` lines).
        case mark(String)
    }

    public let operations: [Operation]

    public enum Failure: Error, CustomStringConvertible {
        case truncated(at: Int)
        case unknownRecord(UInt8, at: Int)
        public var description: String {
            switch self {
            case let .truncated(offset): "write log ends inside a record at byte \(offset)"
            case let .unknownRecord(type, offset): "write log has an unknown record type \(type) at byte \(offset)"
            }
        }
    }

    /// Reads the log at `url`.
    public init(contentsOf url: URL) throws {
        let data = [UInt8](try Data(contentsOf: url))
        var reader = Reader(bytes: data)
        var operations: [Operation] = []
        while !reader.isAtEnd {
            let start = reader.offset
            let type = try reader.byte()
            switch type {
            case UInt8(ascii: "C"): operations.append(.create(path: try reader.string()))
            case UInt8(ascii: "W"), UInt8(ascii: "D"):
                let path = try reader.string()
                let offset = Int(try reader.integer())
                let bytes = try reader.bytes(Int(try reader.integer()))
                operations.append(.write(path: path, offset: offset, bytes: bytes, durable: type == UInt8(ascii: "D")))
            case UInt8(ascii: "T"): operations.append(.truncate(path: try reader.string(), size: Int(try reader.integer())))
            case UInt8(ascii: "S"): operations.append(.sync(path: try reader.string()))
            case UInt8(ascii: "R"): operations.append(.rename(from: try reader.string(), to: try reader.string()))
            case UInt8(ascii: "U"): operations.append(.unlink(path: try reader.string()))
            case UInt8(ascii: "E"): operations.append(.exchange(try reader.string(), try reader.string()))
            case UInt8(ascii: "L"): operations.append(.link(from: try reader.string(), to: try reader.string()))
            case UInt8(ascii: "K"): operations.append(.makeFolder(path: try reader.string()))
            case UInt8(ascii: "X"): operations.append(.removeFolder(path: try reader.string()))
            case UInt8(ascii: "M"):
                operations.append(.mark(String(decoding: try reader.bytes(Int(try reader.integer())), as: UTF8.self)))
            default: throw Failure.unknownRecord(type, at: start)
            }
        }
        self.operations = operations
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var isAtEnd: Bool { offset >= bytes.count }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, offset + count <= bytes.count else { throw Failure.truncated(at: offset) }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func byte() throws -> UInt8 { try bytes(1)[0] }

        mutating func integer() throws -> UInt64 {
            try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func string() throws -> String {
            let length = try bytes(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            return String(decoding: try bytes(length), as: UTF8.self)
        }
    }
}
