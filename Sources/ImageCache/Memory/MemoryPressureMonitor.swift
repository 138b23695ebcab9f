import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Tells registered handlers when the system runs short of memory, so memory tiers can give some
/// back before the app is killed for it.
///
/// On Linux it watches pressure-stall information: a trigger on `/proc/pressure/memory` (tasks
/// stalled on memory for 100 ms within 2 s) wakes one thread blocked in `poll`, which calls the
/// handlers. On Apple platforms it listens to the memory-pressure dispatch source (warning and
/// critical). Elsewhere, or where the kernel has no pressure-stall information, it never fires.
/// Whatever the signal, ``deliverPressureEvent()`` is the one way handlers are called, so a test
/// can deliver an event exactly as the platform would.
final class MemoryPressureMonitor: Sendable {
    /// Handlers by registration number.
    private let handlers = Mutex<[Int: @Sendable () -> Void]>([:])
    private let nextNumber = Mutex(0)
    /// Whether the platform's signal is being watched.
    let isWatching: Bool

    /// The process's monitor.
    static let shared = MemoryPressureMonitor()

    #if canImport(Glibc)
    /// The file to watch and the trigger to arm it with: the kernel's pressure-stall file by
    /// default; a test passes a pipe it writes to (then `trigger` is nil).
    init(path: String = "/proc/pressure/memory", trigger: String? = "some 100000 2000000") {
        isWatching = Self.watch(path: path, trigger: trigger) { [handlers] in Self.callEach(in: handlers) }
    }

    /// Opens `path`, arms `trigger`, and starts the thread that waits on it; false when either fails.
    private static func watch(path: String, trigger: String?, fire: @escaping @Sendable () -> Void) -> Bool {
        let descriptor = open(path, (trigger == nil ? O_RDONLY : O_RDWR) | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        if let trigger {
            let written = trigger.withCString { write(descriptor, $0, strlen($0) + 1) }
            guard written > 0 else {
                close(descriptor)
                return false
            }
        }
        let thread = Thread {
            // The kernel's file always reads as readable; its trigger fires as POLLPRI. A pipe fires as POLLIN.
            let event = Int16(trigger == nil ? POLLIN : POLLPRI)
            var entry = pollfd(fd: descriptor, events: event, revents: 0)
            while true {
                let ready = poll(&entry, 1, -1)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0, entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) == 0 else { break }
                guard entry.revents & event != 0 else { continue }
                // A pipe's bytes are drained so the next write wakes the thread again.
                if trigger == nil {
                    var buffer = [UInt8](repeating: 0, count: 64)
                    _ = read(descriptor, &buffer, buffer.count)
                }
                fire()
            }
            close(descriptor)
        }
        thread.name = "memory-pressure"
        thread.start()
        return true
    }
    #elseif canImport(Darwin)
    /// Kept only to keep the source alive: set once here, never touched again.
    private nonisolated(unsafe) let source: DispatchSourceMemoryPressure

    init() {
        source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: .global(qos: .utility))
        isWatching = true
        source.setEventHandler { [handlers] in Self.callEach(in: handlers) }
        source.activate()
    }
    #else
    init() {
        isWatching = false
    }
    #endif

    /// A monitor on no platform signal: its only events are those given to ``deliverPressureEvent()``.
    package init(watchingNothing: Void) {
        isWatching = false
    }

    /// Calls every registered handler, as the platform's signal does.
    package func deliverPressureEvent() {
        Self.callEach(in: handlers)
    }

    private static func callEach(in handlers: Mutex<[Int: @Sendable () -> Void]>) {
        for handler in handlers.withLock({ Array($0.values) }) { handler() }
    }

    /// Calls `handler` on each pressure signal until the returned registration goes.
    func register(_ handler: @escaping @Sendable () -> Void) -> Registration {
        let number = nextNumber.withLock { value in
            value += 1
            return value
        }
        handlers.withLock { $0[number] = handler }
        return Registration(monitor: self, number: number)
    }

    /// A handler's place in a monitor, removed when this goes.
    final class Registration: Sendable {
        private let monitor: MemoryPressureMonitor
        private let number: Int

        fileprivate init(monitor: MemoryPressureMonitor, number: Int) {
            self.monitor = monitor
            self.number = number
        }

        deinit {
            _ = monitor.handlers.withLock { $0.removeValue(forKey: number) }
        }
    }
}
