import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Connections accepted but not yet handed to the accept loop.
///
/// NIO traps when a connection's writer is released unfinished: a connection accepted while the
/// listener closes may never reach the accept loop, and it was released when its channel became
/// active (seen once in the whole suite, as `Deinited NIOAsyncWriter without calling finish()`).
/// Each accepted connection is held here until the loop claims it; one that its client closes, or
/// that is still here when the origin stops, is closed through `executeThenClose`, which finishes
/// its writer. Claiming takes it out under the lock, so a connection is served or closed, once.
final class UnservedConnections: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let held = NIOLockedValueBox<[ObjectIdentifier: Connection]>([:])
    private let executor: OriginExecutor

    init(executor: OriginExecutor) {
        self.executor = executor
    }

    /// Holds `connection` until it is claimed or its channel closes; returns it.
    func hold(_ connection: Connection) -> Connection {
        let id = ObjectIdentifier(connection.channel)
        held.withLockedValue { $0[id] = connection }
        connection.channel.closeFuture.whenComplete { [self] _ in close(id) }
        return connection
    }

    /// Takes `connection` for serving; false when it was closed first.
    func claim(_ connection: Connection) -> Bool {
        held.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(connection.channel)) } != nil
    }

    /// Closes every connection not claimed.
    func closeAll() {
        for id in held.withLockedValue({ Array($0.keys) }) { close(id) }
    }

    private func close(_ id: ObjectIdentifier) {
        guard let connection = held.withLockedValue({ $0.removeValue(forKey: id) }) else { return }
        Task(executorPreference: executor) { try? await connection.executeThenClose { _, _ in } }
    }
}
