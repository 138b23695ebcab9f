#if os(Linux)
import CLinuxSpawn
import Foundation
import Glibc

/// One decode worker process, from the app's side: started with its socket and a memory file for
/// what it writes to standard error, given one job at a time, and stopped (reaped, never left a
/// zombie) when it dies, overruns or retires.
final class DecodeWorker: Sendable {
    let processID: pid_t
    private let socket: DecodeSocket
    /// The worker's standard error: read back when it dies, for the cause (a panic's message, a
    /// failed allocation), and never written to the app's own standard error.
    private let standardError: Int32

    private init(processID: pid_t, socket: DecodeSocket, standardError: Int32) {
        self.processID = processID
        self.socket = socket
        self.standardError = standardError
    }

    /// Starts `executable` as a worker limited to `memoryLimitBytes` of address space.
    static func start(
        executable: String, memoryLimitBytes: Int, fault: DecodeWorkerFault?
    ) throws(ImageDecodingError) -> DecodeWorker {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .decoderUnavailable("could not make a socket for a decode worker: \(String(cString: strerror(errno)))")
        }
        let errorFile = anonymousFile()
        guard errorFile >= 0 else {
            close(ends[0]); close(ends[1])
            throw .decoderUnavailable("could not make a temporary file for a decode worker: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)
        posix_spawn_file_actions_adddup2(&actions, ends[1], DecodeWorkerService.socketDescriptor)
        // Nothing else of the app's: a descriptor it left open without close-on-exec (a lock file)
        // would otherwise live on in the worker.
        posix_spawn_file_actions_addclosefrom_np(&actions, DecodeWorkerService.socketDescriptor + 1)
        // The worker starts with every signal at its default and none blocked, whatever the app set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        var none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = [executable, String(memoryLimitBytes), fault?.rawValue ?? "none"]
        let environment = ProcessInfo.processInfo.environment
            .filter { $0.key != "SWIFT_BACKTRACE" && $0.key != "GLIBC_TUNABLES" }
            .map { "\($0.key)=\($0.value)" }
            // A crash is an outcome here, not a bug to report: Swift's backtracer would take
            // seconds over each one.
            + ["SWIFT_BACKTRACE=enable=no"]
            // A worker decodes one job at a time: one heap rather than one for each thread libvips
            // starts, and a job's large buffers mapped on their own, so that freeing them gives
            // their memory back and a worker between jobs holds little more than its libraries.
            + ["GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=131072"]
        var processID: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                posix_spawn(&processID, executable, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            close(ends[0]); close(errorFile)
            throw .decoderUnavailable("could not start the decode worker \(executable): \(String(cString: strerror(status)))")
        }
        return DecodeWorker(processID: processID, socket: DecodeSocket(descriptor: ends[0]), standardError: errorFile)
    }

    /// What became of a job: the worker's answer (it stays usable), or the worker's end.
    enum Outcome {
        case answered(Result<DecodedImage, ImageDecodingError>)
        case ended(DecodeWorkerEnd)
    }

    /// Runs `job`, waiting at most until `deadline`. When the worker does not answer in time it is
    /// killed; when it died, it is reaped and its end described.
    func run(_ job: DecodeJob, deadline: ContinuousClock.Instant) -> Outcome {
        do {
            try socket.send(job.encoded, deadline: deadline)
            let bytes = try socket.receive(deadline: deadline)
            guard let reply = DecodeReply(encoded: bytes) else { return .ended(stop(reason: .malformedReply)) }
            switch reply {
            case let .image(image): return .answered(.success(image))
            case let .failure(error): return .answered(.failure(error))
            }
        } catch .timedOut {
            return .ended(stop(reason: .deadline))
        } catch {
            return .ended(stop(reason: .closed))
        }
    }

    /// Bytes the worker has written to its standard error since it started.
    var standardErrorBytes: Int {
        var status = stat()
        return fstat(standardError, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Whether an idle worker is still there to take a job; one that died between jobs (killed
    /// from outside) is reaped here, and the job goes to a new one.
    var isAlive: Bool {
        var status: Int32 = 0
        guard waitpid(processID, &status, WNOHANG) == processID else { return true }
        close(socket.descriptor)
        close(standardError)
        return false
    }

    /// Ends an idle worker: its socket closes, it reads the end of its input and exits.
    func retire() {
        _ = stop(reason: .retired)
    }

    private enum StopReason { case deadline, closed, malformedReply, retired }

    /// Kills the worker unless it is retiring (which it does on its own), reaps it, and says how it ended.
    private func stop(reason: StopReason) -> DecodeWorkerEnd {
        if reason != .retired { kill(processID, SIGKILL) }
        close(socket.descriptor)
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0, errno == EINTR {}
        let message = lastStandardError()
        close(standardError)
        switch reason {
        case .deadline: return .deadlinePassed
        case .retired: return .retired
        case .closed, .malformedReply: return DecodeWorkerEnd(waitStatus: status, standardError: message)
        }
    }

    /// The last line or so the worker wrote to standard error, and a panic's message when there is one.
    private func lastStandardError() -> String {
        let size = standardErrorBytes
        let count = min(size, 1024)
        guard count > 0 else { return "" }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = pread(standardError, &bytes, count, off_t(size - count))
        guard read > 0 else { return "" }
        let text = String(decoding: bytes.prefix(read), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A Rust panic's own message comes before the runtime's notes on it.
        let panic = lines.last { $0.contains("panicked at") }
        return ((panic.map { [$0] } ?? []) + lines.suffix(panic == nil ? 2 : 1)).joined(separator: " ")
    }
}

/// A file with no name in the temporary folder, closed on exec: where a worker's standard error
/// goes, readable by the app and by nobody else.
private func anonymousFile() -> Int32 {
    let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(folder)/imagecache-decode-worker-XXXXXX".utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { return -1 }
    unlink(template)
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    return descriptor
}

/// `strings` as a null-terminated C array, for as long as `body` runs.
private func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
#endif
