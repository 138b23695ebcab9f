#if os(Linux)
import ImageFormats

extension DecodeIsolation {
    /// Where a decode of `format` runs under this isolation.
    enum Place {
        case inProcess
        case worker(DecodeWorkerPool)
        case refused(ImageDecodingError)
    }

    /// The process IDs of this isolation's idle decode workers, for tests that end them from outside.
    package var idleWorkerProcessIDs: [Int32] {
        guard case let .worker(pool) = place(for: .png) else { return [] }
        return pool.idleProcessIDs
    }

    /// The process IDs of every decode worker this isolation's pool started, in order.
    package var startedWorkerProcessIDs: [Int32] {
        guard case let .worker(pool) = place(for: .png) else { return [] }
        return pool.startedProcessIDs
    }

    /// A worker pool when the mode asks for one and the executable is found; the caller's process
    /// when the mode allows it; refused otherwise (SVG without a worker, in the automatic mode).
    func place(for format: ImageFormat) -> Place {
        if mode == .inProcess { return .inProcess }
        switch DecodeWorkerExecutable.locate(for: self) {
        case let .success(executable):
            return .worker(.shared(executable: executable, memoryLimitBytes: workerMemoryLimitBytes, fault: injectedFault))
        case let .failure(missing):
            guard mode == .automatic else { return .refused(missing) }
            guard format != .svg else {
                return .refused(.unsupportedFormat(
                    "SVG is rendered only in a decode worker process, and none is here: \(missing)"))
            }
            return .inProcess
        }
    }
}
#endif
