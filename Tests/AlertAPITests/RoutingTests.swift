import AlertAPI
import Foundation
import Testing

/// The repository's `openapi.yaml`, read from the source tree.
func repositoryOpenAPI(filePath: String = #filePath) throws -> [UInt8] {
    let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return Array(try Data(contentsOf: root.appendingPathComponent("openapi.yaml")))
}

/// Paths, methods and the service routes.
@Suite("Routing")
struct RoutingTests {
    @Test("Unknown paths are 404 problems typed about:blank",
          arguments: ["/", "/nope", "/v1", "/v1/alert", "/v1/alerts/", "/v2/alerts", "/v1/alerts/x/y",
                      "/v1/alerts/x/response/z", "/v1/alerts//response", "/healthz/x", "/openapi.json"])
    func unknownPath(path: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.get(path)
            expectProblem(response, 404, type: "about:blank")
        }
    }

    @Test("Unknown paths are 404 whatever the method", arguments: ["POST", "DELETE", "PUT"])
    func unknownPathAnyMethod(method: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            expectProblem(try await server.send(method, "/nope", body: "{}"), 404, type: "about:blank")
        }
    }

    @Test("PUT /v1/alerts is 405 with Allow: GET, HEAD, POST")
    func putAlertsIs405() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.send("PUT", "/v1/alerts", body: #"{"message":"hi"}"#)
            expectProblem(response, 405, type: "about:blank")
            #expect(response.headers["allow"] == "GET, HEAD, POST")
            #expect(try await server.listIDs("state=all") == [])
        }
    }

    @Test("Wrong methods are 405 with the route's Allow",
          arguments: [
              ("PATCH", "/v1/alerts/ID", ["GET", "HEAD", "DELETE"]),
              ("POST", "/v1/alerts/ID", ["GET", "HEAD", "DELETE"]),
              ("PUT", "/v1/alerts/ID/response", ["GET", "HEAD", "POST"]),
              ("DELETE", "/v1/alerts/ID/response", ["GET", "HEAD", "POST"]),
              ("DELETE", "/v1/alerts", ["GET", "HEAD", "POST"]),
              ("POST", "/healthz", ["GET", "HEAD"]),
              ("DELETE", "/openapi.yaml", ["GET", "HEAD"]),
          ])
    func wrongMethod(method: String, path: String, allowed: [String]) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let response = try await server.send(method, path.replacingOccurrences(of: "ID", with: id), body: "{}")
            expectProblem(response, 405, type: "about:blank")
            let allow = (response.headers["allow"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(Set(allow) == Set(allowed), "Allow: \(response.headers["allow"] ?? "<none>")")
            // The alert is untouched.
            #expect(try await server.response(id).status == 204)
        }
    }

    @Test("GET /healthz is 200 JSON")
    func health() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.get("/healthz")
            #expect(response.status == 200)
            #expect(response.contentType.hasPrefix("application/json"))
            #expect(response.json["status"] == .string("ok"))
        }
    }

    @Test("HEAD /healthz is 200 without a body")
    func healthHead() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.send("HEAD", "/healthz")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
        }
    }

    @Test("GET /openapi.yaml serves the repository's openapi.yaml, byte for byte")
    func openAPIServed() async throws {
        let expected = try repositoryOpenAPI()
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.get("/openapi.yaml")
            #expect(response.status == 200)
            #expect(response.contentType.contains("yaml"), "Content-Type: \(response.contentType)")
            #expect(response.body.count == expected.count)
            #expect(response.body == expected, "the served spec differs from the repository's openapi.yaml")
        }
    }

    @Test("GET /openapi.yaml is application/yaml, or text/yaml when Accept weighs text higher", arguments: [
        (nil, "application/yaml"),
        ("*/*", "application/yaml"),
        ("text/yaml", "text/yaml"),
        ("application/yaml;q=0.5, text/*", "text/yaml"),
        ("text/*;q=0.5, application/yaml", "application/yaml"),
        ("text/yaml, application/yaml", "application/yaml"),
        ("application/json", "application/yaml"),
    ] as [(String?, String)])
    func openAPINegotiated(accept: String?, expected: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.send("GET", "/openapi.yaml", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 200)
            #expect(response.contentType == "\(expected); charset=utf-8", "Accept: \(accept ?? "none")")
            #expect(response.headers["vary"] == "Accept")
        }
    }

    @Test("A query string does not change the route")
    func queryIgnoredForRouting() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            #expect(try await server.get("/healthz?verbose=1").status == 200)
            let id = try await server.create(#"{"message":"hi"}"#)
            #expect(try await server.get("/v1/alerts/\(id)?foo=bar").status == 200)
        }
    }
}
