#if os(Linux)
import Glibc

/// How a decode worker process ended while it had a job, as the error the decode fails with.
enum DecodeWorkerEnd: Equatable {
    /// It overran the processor time it was given: the kernel stopped it (`SIGXCPU`).
    case processorTimeExceeded
    /// It did not answer before the decode's deadline, and the app killed it.
    case deadlinePassed
    /// It could not allocate what it asked for within its address space.
    case outOfMemory(String)
    /// It ended by a signal, or exited, while decoding.
    case crashed(String)
    /// Something outside killed it (`SIGKILL` the app did not send: an operator, the system short
    /// of memory): nothing says the job caused it.
    case killedFromOutside(String)
    /// It was idle and was told to exit.
    case retired

    /// The end `waitStatus` (from `waitpid`) describes, with the last words of the worker's standard error.
    init(waitStatus status: Int32, standardError: String) {
        let signal = status & 0x7f
        let said = standardError.isEmpty ? "" : ": \(standardError)"
        if signal == 0 {
            self = .crashed("the decode worker exited with status \((status >> 8) & 0xff) before answering\(said)")
        } else if signal == SIGXCPU {
            self = .processorTimeExceeded
        } else if signal == SIGKILL {
            self = .killedFromOutside("the decode worker was killed (SIGKILL) from outside, possibly by the system for lack of memory\(said)")
        } else if Self.isAllocationFailure(standardError) {
            self = .outOfMemory("the decode worker could not allocate memory within its limit\(said)")
        } else {
            let name = Self.signalNames[signal] ?? "signal \(signal)"
            self = .crashed("the decode worker ended with \(name)\(said)")
        }
    }

    /// Messages Rust, GLib and the C++ runtime print as they abort for want of memory.
    private static func isAllocationFailure(_ message: String) -> Bool {
        ["memory allocation of", "failed to allocate", "std::bad_alloc", "Cannot allocate memory", "out of memory"]
            .contains { message.localizedCaseInsensitiveContains($0) }
    }

    private static let signalNames: [Int32: String] = [
        SIGABRT: "SIGABRT (an abort: a failed assertion or a panic)", SIGSEGV: "SIGSEGV (a memory fault)",
        SIGBUS: "SIGBUS (a memory fault)", SIGILL: "SIGILL (a trap)", SIGTRAP: "SIGTRAP (a trap)",
        SIGFPE: "SIGFPE (an arithmetic fault)", SIGKILL: "SIGKILL (killed, possibly by the system for lack of memory)",
    ]
}
#endif
