import Foundation

/// Where ``PlatformImageDecoder`` decodes bytes it did not write itself, and the limits a decode
/// runs under there.
///
/// Decoding libraries are large C and Rust code fed with bytes from the network. A fault in one
/// of them (a Rust panic that cannot unwind through C frames, a segmentation fault, an endless
/// loop, an allocation of gigabytes) cannot be caught in the process it happens in, so on Linux
/// the decoder runs each decode in a small pool of worker processes
/// (`imagecache-decode-worker`): there a fault ends the worker, which is started again, and the
/// decode fails with a typed ``ImageDecodingError`` (``ImageDecodingError/decoderCrashed(_:)``,
/// ``ImageDecodingError/decodingTimedOut(_:)``, ``ImageDecodingError/decodingExceededMemory(_:)``).
///
/// The bytes are validated in the app before a worker sees them (the budgets of
/// `ImageValidator.validateForDecoding`), so what can be refused cheaply never costs a worker.
/// Apple platforms decode with ImageIO in the app's process: this type changes nothing there.
///
/// ```swift
/// var isolation = DecodeIsolation.workerProcesses
/// isolation.cpuTimeLimit = .seconds(2)
/// let decoder = PlatformImageDecoder(isolation: isolation)
/// ```
public struct DecodeIsolation: Sendable, Hashable {
    /// Where decodes run.
    public enum Mode: Sendable, Hashable {
        /// In worker processes when the worker executable is found; otherwise in the app's
        /// process, with SVG (the renderer most exposed to crafted input) refused. The default.
        case automatic
        /// Always in worker processes: without the worker executable every decode fails with
        /// ``ImageDecodingError/decoderUnavailable(_:)``, which says where it was looked for.
        case workerProcesses
        /// In the caller's process: for bytes this app wrote itself (stored thumbnails) and
        /// other trusted input. A fault in a decoding library ends the app.
        case inProcess
    }

    /// Where decodes run: ``Mode/automatic`` by default.
    public var mode: Mode
    /// The address space each worker process may map, libraries included: 2 GiB by default. A
    /// decode that needs more fails with ``ImageDecodingError/decodingExceededMemory(_:)``.
    public var workerMemoryLimitBytes: Int = 2 << 30
    /// The processor time one decode may use: 5 seconds by default (whole seconds; the kernel
    /// counts in seconds).
    public var cpuTimeLimit: Duration = .seconds(5)
    /// The time one decode may take from the moment it is handed to a worker, whatever the
    /// worker is waiting for: 15 seconds by default.
    public var deadline: Duration = .seconds(15)
    /// How long a worker waits for its next job before it exits: 10 seconds by default. A waiting
    /// worker holds its decoding libraries' memory; the next decode after it has gone starts
    /// a new one.
    public var idleWorkerLifetime: Duration = .seconds(10)
    /// The worker executable's path. Nil (the default) looks at `$SWIFT_IMAGE_CACHE_DECODE_WORKER`,
    /// then for `imagecache-decode-worker` beside the app's own executable (where `swift build`
    /// puts it: ship it there with the app).
    public var workerExecutable: String?
    /// A fault the worker brings about instead of decoding, for the tests that prove a fault
    /// cannot reach the app.
    package var injectedFault: DecodeWorkerFault?

    /// Isolation in `mode` with the default limits.
    public init(mode: Mode = .automatic) {
        self.mode = mode
    }

    /// Worker processes where the executable is found, else in-process with SVG refused.
    public static let automatic = DecodeIsolation(mode: .automatic)
    /// Worker processes, always.
    public static let workerProcesses = DecodeIsolation(mode: .workerProcesses)
    /// The caller's process, for trusted bytes.
    public static let inProcess = DecodeIsolation(mode: .inProcess)
}

/// A fault a worker process brings about instead of decoding: what a decoding library can do to
/// the process it runs in.
package enum DecodeWorkerFault: String, Sendable, Hashable, CaseIterable {
    /// `abort()`, as a Rust panic inside a C frame does.
    case abort
    /// A write through a null pointer.
    case segmentationFault
    /// A loop that never ends.
    case endlessLoop
    /// An allocation of 4 GiB, touched page by page.
    case hugeAllocation
}
