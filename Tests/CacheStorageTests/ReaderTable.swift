import CLMDB
import Foundation

@testable import CacheStorage

#if canImport(Glibc)
import Glibc
#endif

/// The slots of an LMDB environment's reader table, as `mdb_reader_list` prints them, read from a
/// handle of this process's own that begins no transaction (so takes no slot, and clears none:
/// only `mdb_reader_check` does).
struct ReaderTable {
    struct Slot: Equatable {
        var pid: Int32
        /// The snapshot the slot pins; nil when it holds none.
        var snapshot: UInt64?
    }

    /// How many slots the store's table has.
    static let capacity = BlobStore.readerSlots

    var slots: [Slot]

    /// Slots whose process has exited: what a reader killed mid-read leaves until an open or the
    /// writer's idle pass clears it.
    var ofDeadProcesses: [Slot] {
        slots.filter { kill($0.pid, 0) != 0 && errno == ESRCH }
    }

    /// The table of the environment in `folder` (a store's `blobs/`).
    static func read(_ folder: URL) throws -> ReaderTable {
        var env: OpaquePointer?
        guard mdb_env_create(&env) == 0, let env else { throw CocoaError(.fileReadUnknown) }
        defer { mdb_env_close(env) }
        mdb_env_set_maxreaders(env, UInt32(capacity))
        let code = mdb_env_open(env, folder.path, UInt32(MDB_RDONLY | MDB_NOTLS), 0o600)
        guard code == 0 else { throw CocoaError(.fileReadUnknown, userInfo: ["code": code]) }
        final class Lines { var text = "" }
        let lines = Lines()
        _ = mdb_reader_list(env, { message, context in
            guard let message, let context else { return 0 }
            Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().text += String(cString: message)
            return 0
        }, Unmanaged.passUnretained(lines).toOpaque())
        // "pid thread txnid" under a heading, or "(no active readers)".
        let slots = lines.text.split(separator: "\n").compactMap { line -> Slot? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let pid = Int32(fields[0]) else { return nil }
            return Slot(pid: pid, snapshot: UInt64(fields[2]))
        }
        return ReaderTable(slots: slots)
    }
}
