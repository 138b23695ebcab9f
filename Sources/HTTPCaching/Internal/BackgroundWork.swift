import Foundation

/// Work that outlives the call that started it (prefetches, `stale-while-revalidate` refreshes),
/// tracked so tests and shutdown can wait for it. The task list is behind a `Mutex`.
package final class BackgroundWork: Sendable {
    private let tasks = Mutex<[UUID: Task<Void, Never>]>([:])

    package init() {}

    /// Starts `work` at utility priority.
    package func run(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        // Registered before it can finish, so the removal below always finds it.
        tasks.withLock { tasks in
            tasks[id] = Task(priority: .utility) {
                await work()
                _ = self.tasks.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Waits until no work is running, including work started while waiting.
    package func waitUntilIdle() async {
        while let task = tasks.withLock({ $0.values.first }) {
            await task.value
            // The finished task removes itself just after its value is ready.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
