import Foundation

/// One of the store's threads: it waits for work in a queue of its owner's kind, runs each piece
/// it is given, and ends when asked: the start, the wait and the stop of the writer, the index
/// helper and the write-back thread.
///
/// The owner's queue (`Queue`) lives here, under `condition`; the owner changes it only through
/// ``update(_:)``, which wakes the thread. Each time the thread looks, `next` says what to do: run a
/// piece of work (taken from the queue, outside the lock), wait (for work, or until a date), or
/// finish. `perform` is dropped when the thread ends, which breaks the cycle between the store's
/// core and the closures it handed its threads (so a closed store is freed). State is guarded by
/// `condition` (`@unchecked Sendable` for that reason).
final class JobThread<Queue, Work>: @unchecked Sendable {
    /// What the thread does next.
    enum Step {
        case run(Work)
        /// Waits until woken, or until the date when there is one.
        case wait(until: Date?)
        case finish
    }

    private let condition = NSCondition()
    private var queue: Queue
    private var stopping = false
    private var started = false
    private var finished = false
    private let name: String
    private let next: (_ queue: inout Queue, _ stopping: Bool) -> Step
    private var perform: (@Sendable (Work) -> Void)?

    /// A thread named `name` (see ``BackgroundThread``), not yet started. `next` runs with the lock
    /// held.
    init(named name: String, queue: Queue, next: @escaping (_ queue: inout Queue, _ stopping: Bool) -> Step) {
        self.name = name
        self.queue = queue
        self.next = next
    }

    /// Starts the thread, which runs `perform` for each piece of work, without the lock; once (later
    /// calls do nothing) and never after a stop.
    func start(perform: @escaping @Sendable (Work) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        guard !started, !stopping else { return }
        started = true
        self.perform = perform
        BackgroundThread.start(named: name) { [self] in loop() }
    }

    /// Changes the queue under the lock and wakes the thread. `body` learns whether the thread was
    /// asked to stop.
    @discardableResult
    func update<Result>(_ body: (_ queue: inout Queue, _ stopping: Bool) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        let result = body(&queue, stopping)
        condition.signal()
        return result
    }

    /// Asks the thread to stop (`before` changes the queue first, under the lock) and waits until
    /// `next` has said it is finished; returns at once when it never started.
    func stop(_ before: (inout Queue) -> Void = { _ in }) {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        before(&queue)
        guard started else { return }
        condition.signal()
        while !finished { condition.wait() }
    }

    private func loop() {
        while true {
            condition.lock()
            var step = next(&queue, stopping)
            while case let .wait(until) = step {
                if let until {
                    _ = condition.wait(until: until)
                } else {
                    condition.wait()
                }
                step = next(&queue, stopping)
            }
            guard case let .run(work) = step else {
                perform = nil
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let perform = perform
            condition.unlock()
            perform?(work)
        }
    }
}
