import AlertAPI
import Foundation
import Testing

/// What a client on a persistent connection sees (curl with several URLs, the dashboard).
@Suite("Keep-alive connections")
struct ConnectionTests {
    @Test("One connection serves a whole conversation, including deferred and error responses")
    func conversationOnOneConnection() async throws {
        try await LiveServer.with { server in
            let client = try KeepAliveClient(port: server.port)
            #expect(try await client.send("GET", "/healthz").status == 200)
            let created = try await client.send("POST", "/v1/alerts", body: loginAlert)
            #expect(created.status == 201)
            let id = try #require(created.json["id"]?.stringValue)
            #expect(try await client.send("GET", "/v1/alerts/\(id)").json["id"] == .string(id))
            #expect(try await client.send("GET", "/v1/alerts/\(id)/response").status == 204)
            #expect(try await client.send("GET", "/v1/alerts/\(id)/response?wait=1").status == 204)
            #expect(try await client.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":7}"#)
                .status == 422)
            #expect(try await client.send("POST", "/v1/alerts/\(id)/response", body: "{").status == 400)
            #expect(try await client.send("GET", "/nowhere").status == 404)
            #expect(try await client.send("PUT", "/v1/alerts", body: "{}").status == 405)
            #expect(try await client.send("GET", "/v1/alerts?limit=0").status == 400)
            let head = try await client.send("HEAD", "/v1/alerts")
            #expect(head.status == 200)
            let answered = try await client.send("POST", "/v1/alerts/\(id)/response",
                                                 body: #"{"buttonIndex":1,"values":["a","b"]}"#)
            #expect(answered.status == 200)
            #expect(try await client.send("GET", "/v1/alerts/\(id)/response?wait=5").json == answered.json)
            #expect(try await client.send("DELETE", "/v1/alerts/\(id)").status == 409)
            #expect(try await client.send("GET", "/healthz").status == 200)
        }
    }

    @Test("Pipelined requests, a long-poll among them, are answered in order")
    func pipelining() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let client = try KeepAliveClient(port: server.port)
            let requests = ["/v1/alerts/\(id)/response?wait=1", "/healthz", "/v1/alerts/\(id)", "/nope"]
            let bytes = requests.flatMap { Array("GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8) }
            let responses = try await client.onThread {
                try client.write(bytes)
                return try requests.map { _ in try client.readResponse() }
            }
            #expect(responses.map(\.status) == [204, 200, 200, 404])
            #expect(responses[2].json["id"] == .string(id))
        }
    }

    @Test("Clients that hang up during a long-poll or mid-body do not hurt the server")
    func hangUps() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let port = server.port
            let clients = try (0..<30).map { _ in try KeepAliveClient(port: port) }
            for client in clients {
                try client.write(Array(
                    "GET /v1/alerts/\(id)/response?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            }
            let partial = try KeepAliveClient(port: port)
            try partial.write(Array(
                "POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"mess".utf8))
            await server.waitForWaiters(clients.count)
            for client in clients { client.hangUp() }
            partial.hangUp()
            await server.waitForWaiters(0)  // the hung-up long-polls are noticed and freed
            let answer = try await server.answer(id, #"{"buttonIndex":0}"#)
            #expect(answer.status == 200)
            #expect(try await server.response(id, wait: 5).json == answer.json)
            try await server.expectStillServing()
        }
    }

    @Test("Expect: 100-continue (curl -d with a body over 1 KiB) gets 100 Continue, then 201")
    func expectContinue() async throws {
        try await LiveServer.with { server in
            let patience = 60.0  // a client that never gives up: a server that waits for the body never answers
            let client = try KeepAliveClient(port: server.port, timeout: patience)
            let body = Array(#"{"message":"\#(String(repeating: "m", count: 2000))"}"#.utf8)
            let head = Array("""
                POST /v1/alerts HTTP/1.1\r
                Host: 127.0.0.1\r
                Content-Type: application/x-www-form-urlencoded\r
                Expect: 100-continue\r
                Content-Length: \(body.count)\r
                \r

                """.utf8)
            let watch = Stopwatch()
            let interim = try await client.onThread {
                try client.write(head)
                return try client.readResponse(interim: true)
            }
            #expect(interim.status == 100)
            #expect(watch.seconds < TestTime.sooner(than: patience), "100 Continue comes at once")
            let final = try await client.onThread {
                try client.write(body)
                return try client.readResponse()
            }
            #expect(final.status == 201, "\(final.text)")
            #expect(final.json["message"]?.stringValue?.count == 2000)
        }
    }

    @Test("Expect: 100-continue with an oversize Content-Length is refused with 413 before the body")
    func expectContinueTooLarge() async throws {
        try await LiveServer.with { server in
            let client = try KeepAliveClient(port: server.port)
            let head = Array("""
                POST /v1/alerts HTTP/1.1\r
                Host: 127.0.0.1\r
                Expect: 100-continue\r
                Content-Length: 70000\r
                \r

                """.utf8)
            let response = try await client.onThread {
                try client.write(head)
                return try client.readResponse(interim: true)
            }
            expectProblem(response, 413, type: "urn:alertd:problem:body-too-large")
        }
    }
}
