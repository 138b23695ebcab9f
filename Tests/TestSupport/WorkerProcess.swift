import CacheStorage
import Foundation

/// A running `storage-worker` child process (Tests/Fixtures/StorageWorker): the one wrapper every
/// test suite uses to start, watch, kill and collect one.
///
/// Its standard output and error are drained by a thread of their own from the moment it starts,
/// so a chatty child never blocks on a full pipe, and waiting never holds one of Swift's
/// cooperative threads: readiness is polled with `Task.sleep`, and exit is awaited through the
/// process's termination handler.
public final class WorkerProcess: @unchecked Sendable {
    // @unchecked: `process` is configured before it starts and then only read; the collected
    // output sits behind `state`'s lock.
    private let process = Process()
    private let state = Locked(Output())
    private let exited = AsyncStream<Int32>.makeStream()

    private let input: Pipe?

    private struct Output {
        var stdout = Data()
        var stderr = Data()
        var status: Int32?
        /// Complete lines of standard output so far, and who waits for which (see ``line(_:)``).
        var lines: [String] = []
        /// Pipes read to their end (standard output and standard error): 2 once both are drained.
        var pipesAtEnd = 0
        var lineWaiters: [(number: Int, continuation: CheckedContinuation<String?, Never>)] = []
    }

    /// `storage-worker` beside the test binary.
    public static var executable: URL { BuiltExecutable.named("storage-worker") }

    /// Starts `storage-worker ROLE DIR SECONDS SEED` (SECONDS 0: until killed), with `environment`
    /// added to this process's (the worker's `STORAGE_WORKER_*` options).
    /// `input` gives it a pipe on standard input for ``send(_:)`` (otherwise it reads nothing).
    public convenience init(
        role: String, directory: URL, seconds: Double = 0, seed: UInt64 = 7, environment: [String: String] = [:],
        input: Bool = false
    ) async throws {
        try await self.init(
            executable: Self.executable, arguments: [role, directory.path, String(seconds), String(seed)],
            environment: environment, input: input)
    }

    /// Starts another of the package's executables built beside the tests (`cachectl`, say), watched the same way.
    public convenience init(sibling name: String, arguments: [String]) async throws {
        try await self.init(
            executable: Self.executable.deletingLastPathComponent().appendingPathComponent(name), arguments: arguments,
            environment: [:])
    }

    /// Starts any executable (a compiler, say), watched the same way, with `environment` added.
    public init(executable: URL, arguments: [String], environment: [String: String], input: Bool = false) async throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        self.input = input ? Pipe() : nil
        process.standardInput = self.input ?? FileHandle.nullDevice
        let continuation = exited.continuation
        let state = state
        process.terminationHandler = { process in
            let waiters = state.withLock { output in
                output.status = process.terminationStatus
                defer { output.lineWaiters = [] }
                return output.lineWaiters
            }
            for waiter in waiters { waiter.continuation.resume(returning: nil) }
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        try await ProcessLauncher.launch(process)
        // The child has its copies: without closing ours, the pipes never reach end-of-file and
        // every worker would leave two descriptors and a thread behind.
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        try? self.input?.fileHandleForReading.close()
        Self.drain(output.fileHandleForReading) { chunk in
            let ready = state.withLock { output in
                let start = output.stdout.count
                output.stdout.append(chunk)
                var lineStart = output.stdout[..<start].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? output.stdout.startIndex
                for index in start..<output.stdout.endIndex where output.stdout[index] == UInt8(ascii: "\n") {
                    output.lines.append(String(decoding: output.stdout[lineStart..<index], as: UTF8.self))
                    lineStart = index + 1
                }
                let count = output.lines.count
                let ready = output.lineWaiters.filter { $0.number < count }
                output.lineWaiters.removeAll { $0.number < count }
                return ready.map { ($0.continuation, output.lines[$0.number]) }
            }
            for (continuation, line) in ready { continuation.resume(returning: line) }
        } atEnd: {
            state.withLock { $0.pipesAtEnd += 1 }
        }
        Self.drain(errors.fileHandleForReading) { chunk in
            state.withLock { $0.stderr.append(chunk) }
        } atEnd: {
            state.withLock { $0.pipesAtEnd += 1 }
        }
    }

    /// Reads `handle` to its end on a thread of its own, passing on each piece as it arrives
    /// (`read(2)`: `FileHandle.read(upToCount:)` would wait for the whole count).
    private static func drain(
        _ handle: FileHandle, into append: @escaping @Sendable (Data) -> Void, atEnd: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    append(Data(buffer[0..<count]))
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            try? handle.close()
            atEnd()
        }
        thread.name = "storage-worker output"
        thread.start()
    }

    /// Writes `line` and a newline to the worker's standard input (started with `input: true`).
    public func send(_ line: String) {
        // A worker that died must fail its test, not end the test process with SIGPIPE.
        Self.ignoreBrokenPipes
        try? input?.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Line `number` (from 0) of the worker's standard output, once it has printed it; nil when it
    /// exits first. Waits without polling: the thread that reads the output hands the line over.
    public func line(_ number: Int) async -> String? {
        await withCheckedContinuation { continuation in
            let now: String?? = state.withLock { output in
                if number < output.lines.count { return .some(output.lines[number]) }
                if output.status != nil { return .some(nil) }
                output.lineWaiters.append((number, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// What the worker has printed so far.
    public var output: String { state.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    /// What the worker has printed to standard error so far.
    public var errors: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }
    public var isRunning: Bool { state.withLock { $0.status == nil } }
    /// The batches a writer has acknowledged so far: its `ack GEN KEY…` lines.
    public var acknowledgedBatches: Int { output.split(separator: "\n").filter { $0.hasPrefix("ack ") }.count }
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Waits (up to `timeout`) until the worker prints `line` on a line of its own; false when it
    /// exited or the time ran out first.
    public func waitForLine(_ line: String, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        func printed() -> Bool { output.split(separator: "\n").contains(where: { $0 == line }) }
        while true {
            // Looked at before the deadline is: this task may have waited past it for a thread
            // (a test run keeps the cooperative pool busy), while the worker, a process of its
            // own, printed the line in time.
            if printed() { return true }
            if !isRunning { return printed() }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the worker has the store open (it prints `ready`).
    public func waitUntilReady(timeout: Duration = .seconds(30)) async -> Bool {
        await waitForLine("ready", timeout: timeout)
    }

    /// Sends SIGKILL and waits for the exit; a second call only waits.
    public func kill() async {
        if isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        _ = await status()
    }

    /// Waits for the exit; returns the status, standard output and standard error (drained whole).
    public func finish() async -> (status: Int32, output: String, errors: String) {
        let status = await status()
        // The pipes reach their end once the process and anything that inherited them have
        // exited: wait for both drain threads to have read everything (bounded, in case a child of
        // the worker outlives it with the pipes open).
        for _ in 0..<2000 where state.withLock({ $0.pipesAtEnd < 2 }) { try? await Task.sleep(for: .milliseconds(5)) }
        return (status, output, errors)
    }

    private func status() async -> Int32 {
        if let status = state.withLock({ $0.status }) { return status }
        var iterator = exited.stream.makeAsyncIterator()
        if let status = await iterator.next() { return status }
        return state.withLock { $0.status } ?? -1
    }
}
