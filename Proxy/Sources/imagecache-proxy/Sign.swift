import ArgumentParser
import Foundation
import ImageProxy

/// Prints the path that serves a source under a processing, signed with the key.
struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the signed proxy path for a source URL.",
        discussion: """
            Examples:
              imagecache-proxy sign --key "$KEY" --processing fit:256x256 https://example.com/cat.jpg
              IMAGECACHE_PROXY_KEY=secret imagecache-proxy sign --processing max:512,webp https://example.com/cat.jpg
              imagecache-proxy sign --unsigned --processing original https://example.com/cat.jpg
            """)

    @Option(help: "The signing key (or IMAGECACHE_PROXY_KEY).")
    var key: String?

    @Flag(help: "Print an unsigned path (for a proxy run with --allow-unsigned).")
    var unsigned = false

    @Option(help: "original, fit:WxH, fill:WxH or max:N, optionally with ,jpeg ,png or ,webp.")
    var processing = "original"

    @Argument(help: "The source image's URL.")
    var source: String

    func run() throws {
        guard let url = URL(string: source), url.scheme != nil else { throw ValidationError("'\(source)' is not a URL.") }
        let spec = try ProcessingSpec(parsing: Substring(processing))
        let signer: URLSigner?
        if unsigned {
            signer = nil
        } else {
            guard let key = key ?? Environment.string("IMAGECACHE_PROXY_KEY") else {
                throw ValidationError("Give --key (or IMAGECACHE_PROXY_KEY), or --unsigned.")
            }
            signer = URLSigner(key: Data(key.utf8))
        }
        print(ProxyRequestPath.path(for: url, processing: spec, signer: signer))
    }
}
