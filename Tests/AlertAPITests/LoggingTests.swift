@testable import AlertAPI
import Foundation
import Testing
import JSON

/// Structured logs of the real `alertd` binary: one JSON object a line on standard error,
/// secure values never among them.
@Suite("Structured logs", .spawnsProcesses)
struct LoggingTests {
    func send(_ method: String, _ target: String, _ body: String? = nil, headers: [(String, String)] = [],
              port: Int) async throws -> WireResponse {
        try await RawHTTP.exchange(RawHTTP.request(method, target, headers: headers, body: body.map { Array($0.utf8) }),
                                   port: port)
    }

    /// Stops alertd with SIGTERM (which flushes the log) and returns its standard error as JSON lines.
    func stopAndReadLog(_ alertd: AlertdProcess) async throws -> (lines: [JSONValue], text: String) {
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)  // its standard error is read to the end
        let text = alertd.standardError
        var lines: [JSONValue] = []
        for line in text.split(separator: "\n") {
            guard let json = try? JSONParser.parse(Array(line.utf8)), json.objectValue != nil else {
                Issue.record("not a JSON object: '\(line)'")
                continue
            }
            lines.append(json)
        }
        return (lines, text)
    }

    @Test("One JSON line per request: ts, level, msg, requestId, method, route, status, client, durationMs")
    func requestLines() async throws {
        let alertd = try await AlertdProcess.start()
        let port = alertd.port
        let created = try await send("POST", "/v1/alerts", #"{"title":"log me"}"#,
                                     headers: [("X-Request-Id", "log-create-1")], port: port)
        #expect(created.status == 201)
        let id = try #require(created.json["id"]?.stringValue)
        _ = try await send("POST", "/v1/alerts/\(id)/response", #"{"buttonIndex":0}"#,
                           headers: [("X-Request-Id", "log-answer-1")], port: port)
        _ = try await send("GET", "/nowhere", headers: [("X-Request-Id", "log-404")], port: port)
        _ = try await send("GET", "/v1/alerts?wait=abc", port: port)
        let (lines, _) = try await stopAndReadLog(alertd)

        for line in lines {
            #expect(Array(line.keys.prefix(3)) == ["ts", "level", "msg"], "\(line.keys)")
            #expect(isRFC3339(line["ts"]?.stringValue), "\(line)")
            #expect(["debug", "info", "warn", "error"].contains(line["level"]?.stringValue ?? ""), "\(line)")
        }
        let requests = lines.filter { $0["msg"] == .string("request") }
        #expect(requests.count == 4, "\(requests)")
        for line in requests {
            #expect(line.keys == ["ts", "level", "msg", "requestId", "method", "route", "status", "client",
                                  "durationMs"], "\(line.keys)")
            #expect(line["client"] == .string("127.0.0.1"), "the client's address: \(line)")
            #expect(line["level"] == .string("info"))
            #expect((line["durationMs"]?.doubleValue ?? -1) >= 0, "\(line)")
            #expect(line["requestId"]?.stringValue?.isEmpty == false)
        }
        func line(_ requestID: String) -> JSONValue? {
            requests.first { $0["requestId"] == .string(requestID) }
        }
        #expect(line("log-create-1")?["method"] == .string("POST"))
        #expect(line("log-create-1")?["route"] == .string("/v1/alerts"))
        #expect(line("log-create-1")?["status"]?.int64Value == 201)
        #expect(line("log-answer-1")?["route"] == .string("/v1/alerts/{id}/response"), "the route template, not the path")
        #expect(line("log-answer-1")?["status"]?.int64Value == 200)
        #expect(line("log-404")?["route"] == .string("unknown"))
        #expect(line("log-404")?["status"]?.int64Value == 404)
        #expect(requests.contains { $0["route"] == .string("/v1/alerts") && $0["status"]?.int64Value == 400 })
        // The generated id of a request is the one its response carried.
        #expect(!requests.contains { $0["requestId"]?.stringValue?.contains(id) == true })
    }

    @Test("The transport's own answers (414, 431, 400) are logged with the id they carried; libmicrohttpd's are not")
    func transportFailuresLogged() async throws {
        let alertd = try await AlertdProcess.start()
        let port = alertd.port
        let long = try await send("GET", "/healthz?q=" + String(repeating: "a", count: 5_000), port: port)
        let big = try await send("GET", "/healthz", headers: [("X-Big", String(repeating: "b", count: 5_000)),
                                                              ("X-Request-Id", "log-431")], port: port)
        let twoLengths = try await RawHTTP.exchange(Array(
            "POST /v1/alerts HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 9\r\n\r\n".utf8), port: port)
        // Refused by libmicrohttpd itself, before alertd sees the head: its own page, no id, no log line.
        let badLength = try await RawHTTP.exchange(Array(
            "POST /v1/alerts HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-length\r\nContent-Length: -1\r\n\r\n".utf8),
            port: port)
        let http2 = try await RawHTTP.exchange(Array("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n".utf8), port: port)
        #expect([long.status, big.status, twoLengths.status, badLength.status, http2.status]
                    == [Int]([414, 431, 400, 400, 505]))
        #expect(badLength.headers["x-request-id"] == nil && http2.headers["x-request-id"] == nil)
        let (lines, _) = try await stopAndReadLog(alertd)
        let requests = lines.filter { $0["msg"] == .string("request") }
        #expect(requests.count == 3, "one line for each answer of alertd's, none for libmicrohttpd's: \(requests)")
        #expect(!requests.contains { $0["requestId"] == .string("log-length") })
        for response in [long, big, twoLengths] {
            let id = try #require(response.headers["x-request-id"])
            let line = requests.first { $0["requestId"] == .string(id) }
            #expect(line?["status"]?.int64Value == Int64(response.status), "\(requests)")
        }
        #expect(big.headers["x-request-id"] == "log-431", "the client's id, once the head is in")
        #expect(requests.first { $0["requestId"] == .string("log-431") }?["route"] == .string("/healthz"))
    }

    @Test("Secure values never appear in the log, whatever the request")
    func secureValuesNeverLogged() async throws {
        let alertd = try await AlertdProcess.start()
        let port = alertd.port
        let secrets = ["hunter2-prefilled", "s3cret-answered", "s3cret-in-a-bad-answer"]
        let created = try await send("POST", "/v1/alerts", """
            {"title":"Login","buttons":["Cancel","Log in"],
             "fields":[{"placeholder":"User"},{"placeholder":"Password","secure":true,"text":"\(secrets[0])"}]}
            """, port: port)
        let id = try #require(created.json["id"]?.stringValue)
        // A wrong answer (three values for two fields) is refused; its body is not logged either.
        let refused = try await send("POST", "/v1/alerts/\(id)/response",
                                     #"{"buttonIndex":1,"values":["a","\#(secrets[2])","c"]}"#, port: port)
        #expect(refused.status == 422)
        let answered = try await send("POST", "/v1/alerts/\(id)/response",
                                      #"{"buttonIndex":1,"values":["alice","\#(secrets[1])"]}"#, port: port)
        #expect(answered.status == 200)
        _ = try await send("GET", "/v1/alerts/\(id)", port: port)
        _ = try await send("GET", "/v1/alerts?state=all", port: port)
        _ = try await send("GET", "/v1/events?since=0&wait=0", port: port)
        let (lines, text) = try await stopAndReadLog(alertd)
        #expect(lines.filter { $0["msg"] == .string("request") }.count == 6)
        for secret in secrets {
            #expect(!text.contains(secret), "'\(secret)' is in the log")
        }
    }

    @Test("--access-log off: no request lines")
    func accessLogOff() async throws {
        let alertd = try await AlertdProcess.start(arguments: ["--access-log", "off"])
        #expect(try await send("GET", "/healthz", port: alertd.port).status == 200)
        #expect(try await send("POST", "/v1/alerts", #"{"title":"quiet"}"#, port: alertd.port).status == 201)
        let (lines, _) = try await stopAndReadLog(alertd)
        #expect(!lines.contains { $0["msg"] == .string("request") }, "\(lines)")
    }

    @Test("A failing webhook is logged as a warning naming the alert, not the payload")
    func webhookFailureLogged() async throws {
        let receiver = try WebhookReceiver(statuses: [503, 200])
        defer { receiver.stop() }
        let alertd = try await AlertdProcess.start(arguments: ["--webhook-allow", "loopback"])
        let port = alertd.port
        let created = try await send("POST", "/v1/alerts", """
            {"title":"hook","fields":[{"secure":true,"text":"webhook-secret-value"}],"callback":"\(receiver.url())"}
            """, port: port)
        let id = try #require(created.json["id"]?.stringValue)
        _ = try await send("POST", "/v1/alerts/\(id)/response", #"{"buttonIndex":0}"#, port: port)
        #expect(try await receiver.waitForRequests(2).count == 2)
        // The receiver got the secret (it is the producer's own callback); the log does not.
        #expect(receiver.requests.first?.text.contains("webhook-secret-value") == true)
        let (lines, text) = try await stopAndReadLog(alertd)
        let warning = lines.first { $0["msg"] == .string("webhook delivery failed") }
        #expect(warning?["level"] == .string("warn"), "\(lines)")
        #expect(warning?["alertId"] == .string(id))
        #expect(warning?["attempt"] == .string("1"))
        #expect(!text.contains("webhook-secret-value"))
    }

    @Test("Behind a trusted proxy the request line names the client the proxy forwards, handled or refused alike")
    func clientThroughProxy() async throws {
        let alertd = try await AlertdProcess.start(arguments: ["--trusted-proxy", "127.0.0.1"])
        let port = alertd.port
        let forwarded = [("X-Forwarded-For", "198.51.100.7")]
        _ = try await send("GET", "/healthz", headers: forwarded + [("X-Request-Id", "log-proxied")], port: port)
        // Refused by alertd once the head is in (a target too long is refused before its headers are read: then the
        // line names the peer, the proxy).
        let big = forwarded + [("X-Request-Id", "log-proxied-431"), ("X-Big", String(repeating: "b", count: 5000))]
        _ = try await send("GET", "/healthz", headers: big, port: port)
        _ = try await send("GET", "/healthz", headers: [("X-Request-Id", "log-direct")], port: port)
        let (lines, _) = try await stopAndReadLog(alertd)
        func client(_ requestID: String) -> JSONValue? {
            lines.first { $0["requestId"] == .string(requestID) }?["client"]
        }
        #expect(client("log-proxied") == .string("198.51.100.7"), "\(lines)")
        #expect(client("log-direct") == .string("127.0.0.1"), "no forwarding header: the proxy itself")
        let refused = lines.first { $0["status"]?.int64Value == 431 }
        #expect(refused?["client"] == .string("198.51.100.7"), "a 431 the transport gives: \(lines)")
    }
}
