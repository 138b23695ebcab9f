import ArgumentParser
import NIOCore
import NIOPosix

/// `imagecache-proxy`: serve (the default) or sign.
@main
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagecache-proxy",
        abstract: "An image proxy on swift-image-cache: signed URLs, RFC 9111 caching of sources, thumbnails kept on disk.",
        discussion: """
            URLs: GET /<signature>/<processing>/<source>, where <source> is the source image's URL in URL-safe \
            Base64 without padding, <processing> is original, fit:WxH, fill:WxH or max:N (optionally followed by \
            ,jpeg ,png or ,webp), and <signature> is the URL-safe Base64 HMAC-SHA256 of "<processing>/<source>" \
            under the key (or "unsigned" with --allow-unsigned). Also GET /healthz and GET /metrics.
            """,
        subcommands: [Serve.self, Sign.self],
        defaultSubcommand: Serve.self)

    /// Swift's tasks run on the server's event loops: a request's handler, its answer from memory
    /// and the write of its response then stay on the thread that read it, instead of hopping to
    /// Swift's own pool and back. The pipeline's long work (decoding, encoding, the store's
    /// commits) runs on threads of its own, so the loops stay free for I/O.
    static func main() async {
        ProcessHeap.configure()
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
