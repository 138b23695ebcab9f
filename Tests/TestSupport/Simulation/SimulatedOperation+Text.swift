import Foundation

/// The line a second process reads for each operation and the line it answers with. Keys never
/// hold spaces, commas or colons.
extension SimulatedOperation {
    public var line: String {
        switch self {
        case let .put(put): return "put \(put.key) \(put.generation) \(put.length)"
        case let .putBatch(puts): return "batch " + puts.map { "\($0.key):\($0.generation):\($0.length)" }.joined(separator: ",")
        case let .putDerived(put, source, generation, length):
            return "derive \(put.key) \(put.generation) \(put.length) \(source) \(generation) \(length)"
        case let .update(key, tag): return "update \(key) \(tag)"
        case let .remove(key): return "remove \(key)"
        case let .removeMany(keys): return "removeMany " + keys.joined(separator: ",")
        case .removeAll: return "removeAll"
        case let .evictToBytes(bytes): return "evictBytes \(bytes)"
        case let .evictToEntries(entries): return "evictEntries \(entries)"
        case let .read(key): return "read \(key)"
        case .flush: return "flush"
        case .compact: return "compact"
        case .reopen: return "reopen"
        case let .remote(operation): return "remote " + operation.line
        case .restartRemote: return "restartRemote"
        }
    }

    public init?(line: String) {
        let words = line.split(separator: " ").map(String.init)
        guard let verb = words.first else { return nil }
        let numbers = words.dropFirst().map { UInt64($0) }
        func number(_ index: Int) -> UInt64? { index < numbers.count ? numbers[index] : nil }
        switch (verb, words.count) {
        case ("put", 4):
            guard let generation = number(1), let length = number(2) else { return nil }
            self = .put(SimulatedPut(key: words[1], generation: UInt32(generation), length: Int(length)))
        case ("batch", 2):
            var puts: [SimulatedPut] = []
            for item in words[1].split(separator: ",") {
                let parts = item.split(separator: ":")
                guard parts.count == 3, let generation = UInt32(parts[1]), let length = Int(parts[2]) else { return nil }
                puts.append(SimulatedPut(key: String(parts[0]), generation: generation, length: length))
            }
            self = .putBatch(puts)
        case ("derive", 7):
            guard let generation = number(1), let length = number(2), let sourceGeneration = number(4),
                let sourceLength = number(5)
            else { return nil }
            self = .putDerived(
                SimulatedPut(key: words[1], generation: UInt32(generation), length: Int(length)), source: words[4],
                sourceGeneration: UInt32(sourceGeneration), sourceLength: Int(sourceLength))
        case ("update", 3):
            guard let tag = number(1) else { return nil }
            self = .update(key: words[1], tag: UInt32(tag))
        case ("remove", 2): self = .remove(key: words[1])
        case ("removeMany", 2): self = .removeMany(words[1].split(separator: ",").map(String.init))
        case ("removeAll", 1): self = .removeAll
        case ("evictBytes", 2):
            guard let bytes = number(0) else { return nil }
            self = .evictToBytes(Int(bytes))
        case ("evictEntries", 2):
            guard let entries = number(0) else { return nil }
            self = .evictToEntries(Int(entries))
        case ("read", 2): self = .read(key: words[1])
        case ("flush", 1): self = .flush
        case ("compact", 1): self = .compact
        default: return nil
        }
    }
}

extension SimulatedOutcome {
    public var line: String {
        switch self {
        case .done: return "done"
        case let .found(found): return "found \(found)"
        case let .removed(entries, bytes): return "removed \(entries) \(bytes)"
        case let .read(checksum, etag): return "read \(checksum.map(String.init) ?? "-") \(etag ?? "-")"
        case .sourceChanged: return "sourceChanged"
        case .storeInUse: return "storeInUse"
        case let .failed(message): return "failed " + message.replacingOccurrences(of: "\n", with: " ")
        }
    }

    public init(line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch words.first {
        case "done": self = .done
        case "found" where words.count == 2: self = .found(words[1] == "true")
        case "removed" where words.count == 3:
            self = .removed(entries: Int(words[1]) ?? -1, bytes: Int(words[2]) ?? -1)
        case "read" where words.count == 3:
            self = .read(checksum: UInt64(words[1]), etag: words[2] == "-" ? nil : words[2])
        case "sourceChanged": self = .sourceChanged
        case "storeInUse": self = .storeInUse
        default: self = .failed(line.hasPrefix("failed ") ? String(line.dropFirst(7)) : "unreadable answer: \(line)")
        }
    }
}
