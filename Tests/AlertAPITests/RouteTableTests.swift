@testable import AlertAPI
import AlertCore
import Testing

/// `APIHandler.routes` and its byte-level matching, without a server: what each path names, and what a 405 allows.
@Suite("Route table")
struct RouteTableTests {
    func matched(_ path: String) -> String? {
        guard let (route, id) = APIHandler.route(for: path) else { return nil }
        return id.rawValue.isEmpty ? route.template.text : route.template.text + " " + id.rawValue
    }

    @Test("Paths name their route and id, as sent; anything else names none")
    func matching() {
        #expect(matched("/healthz") == "/healthz")
        #expect(matched("/v1/alerts") == "/v1/alerts")
        #expect(matched("/v1/events") == "/v1/events")
        #expect(matched("/v1/alerts/abc") == "/v1/alerts/{id} abc")
        #expect(matched("/v1/alerts/abc/response") == "/v1/alerts/{id}/response abc")
        #expect(matched("/v1/alerts/response") == "/v1/alerts/{id} response", "an id that happens to be 'response'")
        #expect(matched("/v1/alerts/a%2Fb") == "/v1/alerts/{id} a%2Fb", "an encoded slash is part of the id")
        #expect(matched("/v1/alerts/a%2Fb/response") == "/v1/alerts/{id}/response a%2Fb")
        for path in ["/", "", "/healthz/", "/v1/alerts/", "/v1/alerts//response", "/v1/alerts/a/b/response",
                     "/v1/alerts/a/response/", "/v1/alerts/a/responses", "/v1/alerts/a/b", "/V1/alerts",
                     "/v1/alertsx", "/metrics?x", "/v1/alerts/a/\u{301}response"] {
            #expect(matched(path) == nil, "'\(path)'")
        }
    }

    @Test("Each route's Allow lists its methods, HEAD after GET; HEAD is GET's endpoint (none without GET: /mcp)")
    func allow() {
        let allow = Dictionary(uniqueKeysWithValues: APIHandler.routes.map { ($0.template.text, $0.allow) })
        #expect(allow == [
            "/healthz": "GET, HEAD", "/openapi.yaml": "GET, HEAD", "/metrics": "GET, HEAD", "/v1/events": "GET, HEAD",
            "/v1/me": "GET, HEAD", "/v1/answers": "POST", "/v1/rules": "GET, HEAD, POST", "/v1/rules/{name}": "GET, HEAD, DELETE",
            "/v1/alerts": "GET, HEAD, POST", "/v1/alerts/{id}": "GET, HEAD, DELETE",
            "/v1/alerts/{id}/response": "GET, HEAD, POST", "/mcp": "POST",
            "/app": "GET, HEAD", "/app/app.css": "GET, HEAD", "/app/link": "GET, HEAD, POST", "/app/alerts/{id}": "GET, HEAD",
            "/app/sign-in": "POST", "/app/sign-out": "POST", "/app/answer": "POST", "/app/alerts/{id}/response": "POST",
        ])
        for route in APIHandler.routes {
            #expect(route.endpoint(for: "HEAD")?.method == (route.endpoint(for: "GET") == nil ? nil : "GET"))
            #expect(route.endpoint(for: "PATCH") == nil)
            #expect(route.endpoint(for: "get") == nil, "methods are case-sensitive")
        }
    }
}
