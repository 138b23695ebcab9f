#if os(Linux) && canImport(CVips)
import CVips
import Foundation
import Glibc

/// The worker process's side: `imagecache-decode-worker MEMORY-LIMIT FAULT`, started by
/// ``DecodeWorkerPool`` with its socket as descriptor 3. It limits itself, then decodes one job
/// at a time until the app closes the socket.
package enum DecodeWorkerService {
    /// The descriptor the worker's socket is given as.
    static let socketDescriptor: Int32 = 3

    /// Runs the worker; returns the exit status when the app closes the socket.
    package static func run(arguments: [String]) -> Int32 {
        guard arguments.count == 3, let memoryLimit = Int(arguments[1]) else {
            say("usage: imagecache-decode-worker MEMORY-LIMIT-BYTES FAULT (started by the ImageDecoding library, not by hand)")
            return 64
        }
        let fault = DecodeWorkerFault(rawValue: arguments[2])
        closeInheritedDescriptors()
        limit(RLIMIT_CORE, to: 0)
        limit(RLIMIT_AS, to: rlim_t(memoryLimit))
        let socket = DecodeSocket(descriptor: socketDescriptor)
        // A failure to start is the first job's to report.
        if (try? VipsRuntime.start()) != nil { dropLoadedLibraryPages() }
        while true {
            let message: Data
            do {
                message = try socket.receive(deadline: nil)
            } catch {
                return 0
            }
            guard let job = DecodeJob(encoded: message) else { return 65 }
            limitProcessorTime(toAnother: job.cpuSeconds)
            if let fault { bringAbout(fault) }
            let result = Result { () throws(ImageDecodingError) -> DecodedImage in
                try VipsDecoder().decode(validated: job.data, info: job.info, processing: job.processing)
            }
            do {
                try socket.send(DecodeReply(result).encoded, deadline: nil)
            } catch {
                return 0
            }
        }
    }

    /// Closes every descriptor past the socket, in case the worker was started by something other
    /// than the pool (which closes them as it starts the worker): a worker holds nothing of the app's.
    private static func closeInheritedDescriptors() {
        guard let directory = opendir("/proc/self/fd") else { return }
        var open: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor > socketDescriptor { open.append(descriptor) }
        }
        closedir(directory)
        for descriptor in open { close(descriptor) }
    }

    private static func limit(_ resource: __rlimit_resource, to value: rlim_t) {
        var limit = rlimit(rlim_cur: value, rlim_max: value)
        setrlimit(__rlimit_resource_t(resource.rawValue), &limit)
    }

    /// Lets the process use `seconds` more of processor time from now; past it the kernel sends
    /// `SIGXCPU`, which ends the worker. The hard limit stays open so the next job can move it.
    private static func limitProcessorTime(toAnother seconds: Int) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1
        var limit = rlimit(rlim_cur: rlim_t(used + seconds), rlim_max: rlim_t.max)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    }

    /// A line on standard error, which the app reads when the worker dies.
    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    private static func bringAbout(_ fault: DecodeWorkerFault) {
        switch fault {
        case .abort:
            abort()
        case .segmentationFault:
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
        case .endlessLoop:
            var counter = 0
            while counter >= 0 { counter = (counter &+ 1) & 0x7fff_ffff }
        case .hugeAllocation:
            let count = 4 << 30
            guard let memory = malloc(count) else {
                say("failed to allocate \(count) bytes")
                abort()
            }
            let bytes = memory.assumingMemoryBound(to: UInt8.self)
            for offset in stride(from: 0, to: count, by: 4096) { bytes[offset] = 1 }
            free(memory)
        }
    }
}
#endif
