import CLMDB

/// The numbers the logs key records and blobs by (see ``BlobLocation``), and the only way one is
/// handed out or the store's number floor raised.
///
/// **A number is never given twice while anything may still name it.** A put takes the first
/// free number: one past the last key of either log (a logged record has its blob's number) and
/// of the pointer tail, and not below the store's number floor (``NumberFloor``), then counts on
/// within its transaction. A number deleted from the logs' end would so be free again, and three
/// things may still name one; whatever deletes such a number raises the floor past it in the
/// same transaction, through this type:
///
/// - A mass eviction leaves the pointers of the records it deletes in `records`, to sweep in
///   digest order afterwards (``LeftPointer``): it raises the floor past every number in the
///   logs before it deletes any (``raiseFloorPastLogs(_:_:_:)``), so a pointer it leaves stays
///   stale whatever is put meanwhile. Emptying the store does the same.
/// - The pointer tail's indexes, in this and other processes, read only the pairs past the last
///   number they have read (``PointerTailIndex``): a deletion that drops a record's pair from the
///   tail (``dropTailPair(_:)``) raises the floor past it (``raiseFloorPastDroppedPairs(_:)``), and
///   so does the merge that prunes the tail (``raiseFloor(_:pastMerged:)``). Without it, removing
///   the newest entry gave its number to the next put, which no index that had read the removed
///   pair ever found.
/// - `verify` finds blobs under numbers no record names and removes them: a number still in a log
///   is never free, so no entry can come to name one meanwhile.
///
/// One value per write transaction: it remembers the next number and the pairs dropped, which the
/// store's floor says only once the transaction writes its store info.
struct BlobNumbers {
    private let txn: LMDBTransaction
    private let databases: BlobStore.Databases
    /// The next number to give, read from the logs at the transaction's first put.
    private var next: UInt64?
    /// The pointer tail's first key, read at the first deletion of a logged record.
    private var tailFirst: UInt64?
    /// The highest number whose pair this transaction deleted from the tail.
    private var highestDroppedTailNumber: UInt64?

    init(_ txn: LMDBTransaction, _ databases: BlobStore.Databases) {
        self.txn = txn
        self.databases = databases
    }

    /// The number the next put in `txn` takes, for a caller that predicts the numbers a group
    /// commit will give (``IndexPrefill``): they are given in order from it.
    static func firstFree(_ txn: LMDBTransaction, _ databases: BlobStore.Databases) throws -> UInt64 {
        func last(_ database: MDB_dbi) throws -> UInt64 {
            try txn.lastKey(database).flatMap(BlobLocation.number(fromKey:)) ?? 0
        }
        let floor = try txn.storeInfo(databases)?.numberFloor.value ?? 0
        return max(
            try last(databases.blobLog) + 1, try last(databases.recordLog) + 1, try last(databases.pointerTail) + 1, floor)
    }

    /// Gives the next number: the first free one, past any pair this transaction already dropped
    /// from the tail, then counting within the transaction.
    mutating func take() throws -> UInt64 {
        let number = try next ?? max(Self.firstFree(txn, databases), highestDroppedTailNumber.map { $0 + 1 } ?? 0)
        next = number + 1
        return number
    }

    /// Deletes the pointer tail's pair for `number`, whose logged record this transaction has
    /// deleted: a pair in the tail always names a live record, so the merge writes the pairs it
    /// finds there without reading the record log (see ``PointerMerge``). Numbers below the
    /// tail's first key (an eviction's victims, the oldest entries) have none to look for.
    mutating func dropTailPair(_ number: UInt64) throws {
        let tail = databases.pointerTail
        let first: UInt64
        if let tailFirst {
            first = tailFirst
        } else {
            // An empty tail: this transaction's own puts may append to it, from any number.
            first = try txn.firstKey(tail).flatMap(BlobLocation.number(fromKey:)) ?? 0
            tailFirst = first
        }
        guard number >= first, try BlobLocation.log(number).withKey({ try txn.delete(tail, key: $0) }) else { return }
        highestDroppedTailNumber = max(highestDroppedTailNumber ?? 0, number)
    }

    /// Raises `info`'s floor past every pair this transaction dropped from the tail, for the
    /// transaction to write.
    func raiseFloorPastDroppedPairs(_ info: inout StoreInfo) {
        guard let highestDroppedTailNumber else { return }
        info.numberFloor.raise(to: highestDroppedTailNumber + 1)
    }

    /// Raises `info`'s floor past every number in the logs and the tail, before a transaction
    /// deletes records whose pointers it leaves (a mass eviction), or empties the store.
    static func raiseFloorPastLogs(
        _ info: inout StoreInfo, _ txn: LMDBTransaction, _ databases: BlobStore.Databases
    ) throws {
        info.numberFloor.raise(to: try firstFree(txn, databases))
    }

    /// Raises `info`'s floor past `through`, the last number of a merge round that prunes its
    /// pairs from the tail.
    static func raiseFloor(_ info: inout StoreInfo, pastMerged through: UInt64) {
        info.numberFloor.raise(to: through + 1)
    }
}

/// The store's number floor: no log number below it is given again. 0 until the store's first
/// mass eviction or pruned tail; raised only by ``BlobNumbers``.
struct NumberFloor: Equatable {
    private(set) var value: UInt64

    /// The floor as the store info holds it.
    init(stored value: UInt64 = 0) {
        self.value = value
    }

    fileprivate mutating func raise(to floor: UInt64) {
        value = max(value, floor)
    }
}
