import JSON
import MicroHTTP

/// The endpoints about the server itself: `/healthz`, `/openapi.yaml`, `/metrics`.
extension APIHandler {
    /// `/healthz`: 200 `ok`, or 503 `degraded` once the journal failed (writes are refused until a restart);
    /// with the instance identity and whether alerts survive a restart.
    func health() -> HTTPResponse {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        let failure = store.writeFailure
        writer.key("status"); writer.write(failure == nil ? "ok" : "degraded")
        if let failure {
            // A journal's failure lasts until a restart; a database's reason says itself what happens next.
            let reason = store.authority == nil
                ? "writes failed: \(failure.reason); restart alertd"
                : "writes refused: \(failure.reason)"
            writer.key("reason"); writer.write(reason)
        }
        writer.key("instance"); writer.write(store.epoch)
        writer.key("durable"); writer.write(store.journal != nil || store.authority != nil)
        writer.endObject()
        return .json(failure == nil ? 200 : 503, writer.bytes)
    }

    /// `/openapi.yaml`: the contract, as `application/yaml` (RFC 9512), or its older alias `text/yaml` for
    /// clients that ask for text.
    func openAPI(_ route: RouteRequest) -> HTTPResponse {
        let type = AcceptHeader(route.request.headers["accept"]).preferred(["application/yaml", "text/yaml"])
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "\(type); charset=utf-8", "Vary": "Accept"],
            body: Array(EmbeddedOpenAPI.text.utf8))
    }

    /// `/metrics`: Prometheus text, read from the store on a suspended connection.
    func metricsText() -> HTTPReply {
        .deferred {
            let text = metrics.render(await store.statistics, journal: journalGauges?(), cluster: clusterGauges?())
            return .response(HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(text.utf8)))
        }
    }
}
