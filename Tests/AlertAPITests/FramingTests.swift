@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing

/// Issue 11, items 7, 8 and 13 as a client of alertd sees them: routes match the path as sent, every
/// response the transport's own checks give is a problem with a request id that the metrics count,
/// what libmicrohttpd refuses itself runs nothing, and small header rules.
@Suite("Raw paths, framing problems and transport failures")
struct FramingTests {
    static func raw(_ lines: [String], _ body: String = "") -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    @Test("A %2F or %00 in the path names no other route: not the alert's response, not metrics, not a dismissal")
    func encodedPathsNameNoRoute() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"]}"#)
            let slash = try await server.get("/v1/alerts/\(id)%2Fresponse")
            _ = expectProblem(slash, 404)
            #expect(slash.json["id"] == nil, "not the alert")
            let metrics = try await server.get("/metrics%00.css")
            _ = expectProblem(metrics, 404)
            #expect(!metrics.text.contains("alertd_http_requests_total"))
            _ = expectProblem(try await server.delete("/v1/alerts/\(id)%00zzz"), 404)
            _ = expectProblem(try await server.delete("/v1/alerts/\(id)%2F"), 404)
            let alert = try await server.get("/v1/alerts/\(id)")
            #expect(alert.json["state"]?.stringValue == "pending", "nothing dismissed it")
        }
    }

    @Test("Query parameters are still percent-decoded")
    func queryDecoded() async throws {
        try await LiveServer.with { server in
            _ = try await server.create(#"{"title":"t","presenter":"ops-team"}"#)
            let list = try await server.get("/v1/alerts?presenter=ops%2Dteam")
            #expect(list.status == 200, "\(list.text)")
            #expect(list.json["alerts"]?.arrayValue?.count == 1)
        }
    }

    @Test("408, 413, 414, 431 and framing refusals are problems with an X-Request-Id, counted in the metrics")
    func transportFailuresCounted() async throws {
        try await LiveServer.with({ $0.http.headerTimeout = 1 }) { server in
            let port = server.port
            let failures: [(String, [UInt8], Int, String)] = [
                ("uri-too-long", Self.raw(["GET /healthz?q=\(String(repeating: "a", count: 5_000)) HTTP/1.1", "Host: x"]),
                 414, #"{route="/healthz",method="other",status="414"}"#),
                ("headers-too-large", Self.raw(["GET /healthz HTTP/1.1", "Host: x", "X-Big: " + String(repeating: "b", count: 5_000)]),
                 431, #"{route="/healthz",method="GET",status="431"}"#),
                ("body-too-large", Self.raw(["POST /v1/alerts HTTP/1.1", "Host: x", "Content-Length: 70000"]),
                 413, #"{route="/v1/alerts",method="POST",status="413"}"#),
                ("malformed-request", Self.raw(["POST /v1/alerts HTTP/1.1", "Host: x", "Content-Length: 4",
                                                "Transfer-Encoding: chunked"], "0\r\n\r\n"),
                 400, #"{route="/v1/alerts",method="POST",status="400"}"#),
                ("request-timeout", Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Never: ".utf8),
                 408, #"{route="/healthz",method="other",status="408"}"#),
            ]
            for (slug, bytes, status, labels) in failures {
                let response = try await ConnectionAbuseTests.answer(to: bytes, port: port)
                _ = expectProblem(response, status, type: "urn:alertd:problem:\(slug)")
                #expect(response.headers["x-request-id"]?.isEmpty == false, "\(slug)")
                #expect(response.headers["connection"] == "close", "\(slug)")
                #expect(try await server.metrics()["alertd_http_requests_total" + labels] == 1, "\(slug)")
            }
        }
    }

    @Test("libmicrohttpd's own refusals get its status and a close, first or second; no create behind them runs")
    func libraryRefusalsRunNothing() async throws {
        try await LiveServer.with { server in
            let port = server.port
            let host = "Host: 127.0.0.1"
            let chunked = ["POST /v1/alerts HTTP/1.1", host, "Transfer-Encoding: chunked"]
            // libmicrohttpd's own answers (docs/ERRORS.md), each followed by a create that must not run.
            let refusals: [(String, [UInt8], Int)] = [
                ("a bad Content-Length", Self.raw(["POST /v1/alerts HTTP/1.1", host, "Content-Length: -1"]), 400),
                ("a header line without a colon", Self.raw(["GET /healthz HTTP/1.1", host, "NoColon"]), 400),
                ("HTTP/0.9", Array("GET /healthz\r\n".utf8), 400),
                ("HTTP/2.0", Self.raw(["GET /healthz HTTP/2.0", host]), 505),
                ("a chunk size past 64 bits", Self.raw(chunked, "FFFFFFFFFFFFFFFFFF\r\n"), 413),
                ("a chunk size that is not hexadecimal", Self.raw(chunked, "zz\r\n"), 400),
                ("a chunk-size line past the connection's memory",
                 Self.raw(chunked, String(repeating: "0", count: 9_000) + "5\r\nhello\r\n0\r\n\r\n"), 500),
            ]
            let create = Self.raw(["POST /v1/alerts HTTP/1.1", host, "Content-Length: 16"], #"{"title":"smug"}"#)
            for (name, bytes, status) in refusals {
                for keepAlive in [false, true] {
                    let client = try KeepAliveClient(port: port)
                    let response = try await client.onThread {
                        if keepAlive {
                            try client.write(Self.raw(["GET /healthz HTTP/1.1", host]))
                            _ = try client.readResponse()
                        }
                        try client.write(bytes + create)
                        return try client.readResponse()
                    }
                    #expect(response.status == status, "\(name): \(response)")
                    #expect(response.headers["connection"] == "close", "\(name)")
                    #expect(response.headers["content-type"] == nil && response.headers["x-request-id"] == nil,
                            "\(name): libmicrohttpd's page, not the handler's problem")
                    // Closed after the answer (after a bad Content-Length, libmicrohttpd sends its head twice).
                    _ = try await client.readToEnd()
                }
            }
            #expect(try await server.listIDs().isEmpty, "no create sent behind a refusal ran")
            let metrics = try await server.metrics()
            let healthz = #"alertd_http_requests_total{route="/healthz",method="GET",status="200"}"#
            #expect(metrics.samples.keys.filter { $0.hasPrefix("alertd_http_requests_total{") }.sorted()
                        == [healthz, #"alertd_http_requests_total{route="/v1/alerts",method="GET",status="200"}"#],
                    "only the requests before the refusals, and the list, are counted")
            #expect(metrics[healthz] == Double(refusals.count))
            // The same create alone runs: what did not run above was refused with the request before it.
            let created = try await ConnectionAbuseTests.answer(to: create, port: port)
            #expect(created.status == 201, "\(created)")
            try await server.expectStillServing()
        }
    }

    @Test("Expect: 100-continue gets 401 before 100 Continue when the token is missing")
    func expectContinueChecksTokenFirst() async throws {
        try await AccessControlTests.withTokens { server in
            let client = try KeepAliveClient(port: server.port)
            let head = Self.raw(["POST /v1/alerts HTTP/1.1", "Host: 127.0.0.1", "Expect: 100-continue",
                                 "Content-Length: 2000"])
            let first = try await client.onThread {
                try client.write(head)
                return try client.readResponse(interim: true)
            }
            _ = expectProblem(first, 401, type: "urn:alertd:problem:unauthorized")
            #expect(first.headers["x-request-id"]?.isEmpty == false)
            // With a valid token the client is asked for its body.
            let allowed = try KeepAliveClient(port: server.port)
            let interim = try await allowed.onThread {
                try allowed.write(Self.raw(["POST /v1/alerts HTTP/1.1", "Host: 127.0.0.1", "Expect: 100-continue",
                                            "Authorization: Bearer \(AccessControlTests.ci)", "Content-Length: 15"]))
                return try allowed.readResponse(interim: true)
            }
            #expect(interim.status == 100)
            let created = try await allowed.onThread {
                try allowed.write(Array(#"{"title":"ok"}"#.utf8) + [0x20])
                return try allowed.readResponse()
            }
            #expect(created.status == 201, "\(created.text)")
        }
    }

    @Test("Trailing whitespace is not part of a header value: 'Idempotency-Key: k ' is the key 'k'")
    func trailingWhitespaceTrimmed() async throws {
        try await LiveServer.with { server in
            let body = #"{"title":"once"}"#
            let first = try await server.send("POST", "/v1/alerts", body: body, headers: [("Idempotency-Key", "k \t")])
            #expect(first.status == 201, "\(first.text)")
            let again = try await server.send("POST", "/v1/alerts", body: body, headers: [("Idempotency-Key", "k")])
            #expect(again.status == 200)
            #expect(again.headers["idempotent-replayed"] == "true")
            #expect(again.json["id"] == first.json["id"])
        }
    }
}
