#if os(Linux)
import Glibc
import ImageDecoding

/// `imagecache-decode-worker MEMORY-LIMIT-BYTES FAULT`: started by the ImageDecoding library,
/// which talks to it over descriptor 3 (see `DecodeWorkerService`).
@main
enum DecodeWorkerMain {
    static func main() {
        exit(DecodeWorkerService.run(arguments: CommandLine.arguments))
    }
}
#else
/// Apple platforms decode with ImageIO in the app's process: no worker is used there.
@main
enum DecodeWorkerMain {
    static func main() {}
}
#endif
