import CacheStorage
import Foundation
import HTTPTypes
import Hummingbird
import ImageCache
import ImageCacheMetrics
import Logging
import NIOCore
import NIOFoundationCompat
import Prometheus

/// The proxy's HTTP face on Hummingbird: `GET /healthz`, `GET /metrics` (Prometheus text) and
/// `GET /<signature>/<processing>/<source>` for images (``ImageProxy``).
public enum ProxyServer {
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
            return response(answer)
        }
        return router
    }

    /// A proxy answer as Hummingbird sends it.
    static func response(_ answer: ProxyAnswer) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: .init(byteBuffer: ByteBuffer(data: answer.body)))
    }
}
