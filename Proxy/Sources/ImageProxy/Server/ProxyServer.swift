import CacheStorage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import ImageCache
import ImageCacheMetrics
import Logging
import Metrics
import NIOCore
import Prometheus

/// The proxy's HTTP face on Hummingbird: `GET /healthz`, `GET /metrics` (Prometheus text) and
/// `GET /<signature>/<processing>/<source>` for images (``ImageProxy``), with the answers memory
/// can give at once written on the event loop (`MemoryAnswerHandler`).
public enum ProxyServer {
    /// The paths of the server's own routes, which are never image paths.
    static let ownRoutes: Set<String> = ["/healthz", "/metrics"]

    /// The router: the three routes, nothing else.
    public static func router(
        proxy: ImageProxy, store: PersistentStore?, registry: PrometheusCollectorRegistry?
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/healthz") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        if let registry {
            router.get("/metrics") { _, _ -> Response in
                proxy.options.metrics?.report(store: store, pipeline: proxy.pipeline)
                var buffer: [UInt8] = []
                registry.emit(into: &buffer)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
            }
        }
        router.get("**") { request, _ -> Response in
            let answer = await proxy.answer(
                path: Substring(request.uri.path), accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch])
            var fields = HTTPFields()
            for (name, value) in answer.head.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: fields, body: .init(byteBuffer: answer.body))
        }
        return router
    }

    /// The HTTP/1.1 server, with memory's answers given on the event loop (counted as
    /// `<prefix>_proxy_answers_at_once_total` when the proxy records metrics).
    public static func server(proxy: ImageProxy) -> HTTPServerBuilder {
        let answered = proxy.options.metrics.map { Counter(label: "\($0.prefix)_proxy_answers_at_once_total") }
        return HTTPServerBuilder { responder in ProxyHTTPChannel(responder: responder, proxy: proxy, answered: answered) }
    }
}
