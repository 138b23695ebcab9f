import CSQLite
import Foundation

/// `SQLITE_TRANSIENT`, which does not import: tells SQLite to copy bound bytes at once.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe by itself: each owner keeps it on one thread or behind
/// a lock (see ``MetadataIndex``).
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    let path: String
    private var statements: [String: OpaquePointer] = [:]
    /// The statements of fixed text, by the address of that text: looking one up by its string
    /// hashed and compared the whole statement, a kilobyte for the index's upsert, and a replay of
    /// 1,000,000 puts made two such look-ups each.
    private var fixedStatements: [UInt: OpaquePointer] = [:]
    /// Counts the write transactions begun on this connection, so that what was read inside one
    /// can tell whether it is still the one under way (see ``writeTransaction``).
    private var writeTransactionsBegun = 0

    /// Opens `path` (a file name, or a `file:` URI when `uri` is set).
    init(path: String, readOnly: Bool = false, uri: Bool = false) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0)
        let code = sqlite3_open_v2(path, &db, flags, nil)
        if code != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            let systemError = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            throw Self.typedError(code, systemError: systemError, path: path, operation: "open")
                ?? StorageError.sqlite(operation: "open \(path)", code: code, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        close()
    }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        for statement in fixedStatements.values { sqlite3_finalize(statement) }
        fixedStatements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw Self.typedError(code, systemError: sqlite3_system_errno(handle), path: path, operation: "write the index")
                ?? StorageError.sqlite(operation: "run \(sql.prefix(60))", code: code, message: text)
        }
    }

    /// A cached prepared statement of fixed text, reset and cleared, ready to bind.
    func prepare(_ sql: StaticString) throws -> SQLiteStatement {
        let address = UInt(bitPattern: sql.utf8Start)
        if let cached = fixedStatements[address] { return reused(cached) }
        let statement = try compile(sql.description)
        fixedStatements[address] = statement
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// A cached prepared statement of text made at run time (a listing's filters), reset and
    /// cleared, ready to bind.
    func prepare(built sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return reused(cached) }
        let statement = try compile(sql)
        statements[sql] = statement
        return SQLiteStatement(handle: statement, connection: self)
    }

    private func reused(_ cached: OpaquePointer) -> SQLiteStatement {
        sqlite3_reset(cached)
        sqlite3_clear_bindings(cached)
        return SQLiteStatement(handle: cached, connection: self)
    }

    private func compile(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw error(code, "prepare \(sql.prefix(60))")
        }
        return statement
    }

    func error(_ code: Int32, _ operation: String) -> StorageError {
        Self.typedError(code, systemError: sqlite3_system_errno(handle), path: path, operation: "write the index")
            ?? .sqlite(operation: operation, code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// The file-system cause behind a SQLite failure, when it has one: a full disk (`SQLITE_FULL`,
    /// or an I/O error whose system error is `ENOSPC`), a read-only file, a refused permission.
    static func typedError(_ code: Int32, systemError: Int32, path: String, operation: String) -> StorageError? {
        let primary = code & 0xFF
        if primary == SQLITE_FULL { return .diskFull(path: path, operation: operation) }
        if primary == SQLITE_READONLY { return .readOnly(path: path, reason: "the index cannot be written") }
        guard primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN, systemError > 0 else { return nil }
        let typed = FileSystemErrors.error(errno: systemError, path: path, operation: operation)
        if case .io = typed { return nil }
        return typed
    }

    /// The first column of the first row of `sql`, as an integer.
    func scalar(_ sql: StaticString) throws -> Int64? {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement.handle) }
        return try statement.step() ? statement.int64(0) : nil
    }

    /// Resets every cached statement. A statement left mid-result holds a read snapshot open,
    /// and a later `BEGIN IMMEDIATE` on a stale snapshot fails with `SQLITE_BUSY_SNAPSHOT`.
    func resetStatements() {
        for statement in statements.values { sqlite3_reset(statement) }
        for statement in fixedStatements.values { sqlite3_reset(statement) }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        resetStatements()
        try beginImmediate()
        return try completeTransaction(body)
    }

    /// `BEGIN IMMEDIATE`: takes SQLite's write lock (waiting up to the busy timeout for it).
    func beginImmediate() throws {
        try execute("BEGIN IMMEDIATE")
        writeTransactionsBegun += 1
    }

    /// The write transaction (begun with ``beginImmediate()``) under way on this connection, nil
    /// outside one. Rows read inside it stay as read until it ends, except for what this
    /// connection itself writes: no other connection writes while it holds the write lock.
    var writeTransaction: Int? {
        sqlite3_txn_state(handle, nil) == SQLITE_TXN_WRITE ? writeTransactionsBegun : nil
    }

    /// Runs `body` inside the write transaction already begun on this connection, then commits
    /// it; rolls it back when `body` or the commit throws.
    func completeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Rolls back the transaction under way, if there is one.
    func rollBack() {
        resetStatements()
        try? execute("ROLLBACK")
    }

    /// Runs `body` inside a deferred read transaction, so every query sees one snapshot.
    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        resetStatements()
        try execute("BEGIN")
        defer {
            resetStatements()
            try? execute("COMMIT")
        }
        return try body()
    }
}

/// A prepared statement borrowed from its connection's cache.
struct SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection

    func bind(_ index: Int32, _ value: Int64?) throws {
        let code = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code)
    }

    func bind(_ index: Int32, _ value: Int?) throws {
        try bind(index, value.map(Int64.init))
    }

    func bind(_ index: Int32, _ value: String?) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        var copy = value
        let code = copy.withUTF8 { buffer in
            sqlite3_bind_text(handle, index, buffer.baseAddress, Int32(buffer.count), transientDestructor)
        }
        try check(code)
    }

    func bind(_ index: Int32, blob value: UnsafeRawBufferPointer?) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        // A zero-length blob needs a non-nil pointer, or SQLite stores NULL.
        let code = sqlite3_bind_blob(
            handle, index, value.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(value.count),
            transientDestructor)
        try check(code)
    }

    func bind(_ index: Int32, blob value: [UInt8]?) throws {
        guard let value else { return try bind(index, blob: nil as UnsafeRawBufferPointer?) }
        try value.withUnsafeBytes { try bind(index, blob: $0) }
    }

    /// Advances; true while a row is available.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code, "step \(String(cString: sqlite3_sql(handle)).prefix(60))")
    }

    /// Steps to completion, for statements that return no rows.
    func run() throws {
        while try step() {}
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's bytes, read where SQLite keeps them (valid only inside `body`); nil for NULL.
    func withBytes<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result?) -> Result? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count))
    }

    func bytes(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private func check(_ code: Int32) throws {
        if code != SQLITE_OK { throw connection.error(code, "bind a value") }
    }
}
