@testable import AlertAPI
import Foundation
import Testing

/// A Prometheus text exposition (0.0.4), read back: samples by `name{labels}`, and the
/// `# TYPE` of each family.
struct PrometheusText {
    var samples: [String: Double] = [:]
    var order: [String] = []
    var types: [String: String] = [:]
    var helps: Set<String> = []
    var problems: [String] = []

    init(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) where !line.isEmpty {
            if line.hasPrefix("# HELP ") {
                helps.insert(String(line.dropFirst(7).prefix { $0 != " " }))
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) } else { problems.append(line) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                problems.append(line)
                continue
            }
            let key = String(line[..<space])
            let name = String(key.prefix { $0 != "{" })
            let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                types[name] == nil && name.hasSuffix(suffix) && types[String(name.dropLast(suffix.count))] == "histogram"
                    ? String(name.dropLast(suffix.count)) : name
            }
            if types[family] == nil || !helps.contains(family) { problems.append("no HELP/TYPE before \(line)") }
            if samples[key] != nil { problems.append("duplicate \(key)") }
            samples[key] = value
            order.append(key)
        }
    }

    subscript(key: String) -> Double? { samples[key] }

    /// The cumulative buckets of histogram `name`, in order, `+Inf` last.
    func buckets(_ name: String) -> [(le: String, count: Double)] {
        order.filter { $0.hasPrefix(name + "_bucket{") }.map { key in
            let le = key.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
            return (le, samples[key] ?? -1)
        }
    }
}

extension LiveServer {
    /// `GET /metrics`, parsed; fails the test unless 200.
    func metrics(sourceLocation: SourceLocation = #_sourceLocation) async throws -> PrometheusText {
        let response = try await get("/metrics")
        try #require(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return PrometheusText(response.text)
    }
}

/// `GET /metrics` (Prometheus text format) and `X-Request-Id`.
@Suite("Metrics and request ids")
struct MetricsTests {
    @Test("GET /metrics: Prometheus text 0.0.4, every family described, every sample well-formed")
    func format() async throws {
        try await LiveServer.with { server in
            let response = try await server.get("/metrics")
            #expect(response.status == 200)
            #expect(response.contentType.hasPrefix("text/plain"))
            #expect(response.contentType.contains("version=0.0.4"))
            #expect(response.text.hasSuffix("\n"))
            let metrics = PrometheusText(response.text)
            #expect(metrics.problems.isEmpty, "\(metrics.problems)")
            let expected: [String: String] = [
                "alertd_alerts_created_total": "counter", "alertd_alerts_resolved_total": "counter",
                "alertd_alerts_escalated_total": "counter",
                "alertd_alerts_pending": "gauge", "alertd_alerts_resolved_kept": "gauge", "alertd_waiters": "gauge",
                "alertd_change_index": "gauge", "alertd_event_streams": "gauge",
                "alertd_event_streams_dropped_total": "counter", "alertd_answer_latency_seconds": "histogram",
                "alertd_http_requests_total": "counter", "alertd_http_request_duration_seconds": "histogram",
                "alertd_webhook_deliveries_total": "counter", "alertd_http_unread_response_bytes": "gauge",
                "alertd_build_info": "gauge",
            ]
            for (name, type) in expected {
                #expect(metrics.types[name] == type, "\(name)")
            }
            // On a fresh server the counters start at zero, labelled series included.
            #expect(metrics["alertd_alerts_created_total"] == 0)
            for resolution in ["answered", "dismissed", "expired"] {
                #expect(metrics[#"alertd_alerts_resolved_total{resolution="\#(resolution)"}"#] == 0)
            }
            #expect(metrics["alertd_event_streams"] == 0)
            #expect(metrics["alertd_answer_latency_seconds_count"] == 0)
            let head = try await server.send("HEAD", "/metrics")
            #expect(head.status == 200 && head.body.isEmpty)
        }
    }

    @Test("Counters move: created, resolved by resolution, pending, change index, answer latency")
    func alertCounters() async throws {
        try await LiveServer.with { server in
            let sinceCreate = Stopwatch()
            let answered = try await server.create(#"{"title":"a","buttons":["No","Yes"]}"#)
            let dismissed = try await server.create(#"{"title":"d"}"#)
            _ = try await server.create(#"{"title":"e","timeout":0.2}"#)
            _ = try await server.create(#"{"title":"still pending"}"#)
            try await Task.sleep(for: .milliseconds(200))  // not ordering: the answer latency is at least this
            _ = try await server.answer(answered, #"{"buttonIndex":1}"#)
            let mostLatency = sinceCreate.seconds
            _ = try await server.delete("/v1/alerts/\(dismissed)")
            _ = try await server.response(answered)  // reads change nothing
            #expect(try await server.get("/v1/alerts/\(answered)?wait=0").status == 200)
            var metrics = try await server.metrics()
            _ = try await TestTime.until(every: .milliseconds(50)) {
                metrics = try await server.metrics()
                return metrics[#"alertd_alerts_resolved_total{resolution="expired"}"#] == 1
            }
            #expect(metrics["alertd_alerts_created_total"] == 4)
            #expect(metrics[#"alertd_alerts_resolved_total{resolution="answered"}"#] == 1)
            #expect(metrics[#"alertd_alerts_resolved_total{resolution="dismissed"}"#] == 1)
            #expect(metrics[#"alertd_alerts_resolved_total{resolution="expired"}"#] == 1)
            #expect(metrics["alertd_alerts_pending"] == 1)
            #expect(metrics["alertd_alerts_resolved_kept"] == 3)
            #expect(metrics["alertd_change_index"] == 7)
            // Answer latency: one answered alert, answered 0.2 s or more after it was created, and no later than
            // the test saw the answer come back.
            #expect(metrics["alertd_answer_latency_seconds_count"] == 1)
            let latency = metrics["alertd_answer_latency_seconds_sum"] ?? -1
            #expect(latency >= 0.15 && latency <= mostLatency, "\(latency) s, at most \(mostLatency) s")
            let buckets = metrics.buckets("alertd_answer_latency_seconds")
            #expect(buckets.last?.le == "+Inf")
            #expect(buckets.last?.count == 1)
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count }, "cumulative: \(buckets)")
            #expect(buckets.first { $0.le == "0.1" }?.count == 0)
            #expect(buckets.first { $0.le == "5.0" }?.count == (latency <= 5 ? 1 : 0))
        }
    }

    @Test("HTTP requests are counted by route template, method and status")
    func requestCounters() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"x"}"#)
            _ = try await server.create(#"{"title":"y"}"#)
            _ = try await server.post("/v1/alerts", #"{"title":"#)
            _ = try await server.post("/v1/alerts", #"{"mesage":"typo"}"#)
            _ = try await server.alert(id)
            _ = try await server.alert("no-such-alert")
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            _ = try await server.response(id)
            _ = try await server.get("/nowhere")
            _ = try await server.send("PUT", "/v1/alerts")
            _ = try await server.get("/healthz")
            _ = try await server.get("/v1/alerts?limit=0")
            let metrics = try await server.metrics()
            func requests(_ route: String, _ method: String, _ status: Int) -> Double? {
                metrics[#"alertd_http_requests_total{route="\#(route)",method="\#(method)",status="\#(status)"}"#]
            }
            #expect(requests("/v1/alerts", "POST", 201) == 2)
            #expect(requests("/v1/alerts", "POST", 400) == 1)
            #expect(requests("/v1/alerts", "POST", 422) == 1)
            #expect(requests("/v1/alerts/{id}", "GET", 200) == 1)
            #expect(requests("/v1/alerts/{id}", "GET", 404) == 1)
            #expect(requests("/v1/alerts/{id}/response", "POST", 200) == 1)
            #expect(requests("/v1/alerts/{id}/response", "POST", 409) == 1)
            #expect(requests("/v1/alerts/{id}/response", "GET", 200) == 1)
            #expect(requests("unknown", "GET", 404) == 1)
            #expect(requests("/v1/alerts", "PUT", 405) == 1)
            #expect(requests("/healthz", "GET", 200) == 1)
            #expect(requests("/v1/alerts", "GET", 400) == 1)
            // Ids never become labels: the label set stays bounded.
            #expect(!metrics.order.contains { $0.contains(id) })
            #expect(metrics["alertd_http_request_duration_seconds_count"] == 13)
            // This request is counted once it is answered, so the next scrape shows it.
            #expect(try await server.metrics()[#"alertd_http_requests_total{route="/metrics",method="GET",status="200"}"#] == 1)
        }
    }

    @Test("An unusual method gets the label 'other', so the label set stays bounded")
    func otherMethod() async throws {
        try await LiveServer.with { server in
            _ = try await server.send("BREW", "/v1/alerts")
            let metrics = try await server.metrics()
            #expect(metrics[#"alertd_http_requests_total{route="/v1/alerts",method="other",status="405"}"#] == 1,
                    "\(metrics.order.filter { $0.hasPrefix("alertd_http_requests_total") })")
        }
    }

    @Test("Gauges: waiters and open event streams")
    func gauges() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"waited on"}"#)
            let poll = Task { try await server.response(id, wait: 60) }
            let first = try await server.openStream()
            let second = try await server.openStream("/v1/events?since=0")
            var metrics = try await server.metrics()
            _ = try await TestTime.until(every: .milliseconds(50)) {
                metrics = try await server.metrics()
                return metrics["alertd_waiters"] ?? 0 >= 1
            }
            #expect(metrics["alertd_waiters"] ?? 0 >= 1)
            #expect(metrics["alertd_event_streams"] == 2)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            _ = try await poll.value
            // A reader that hangs up is noticed at the next write to it.
            first.disconnect()
            second.disconnect()
            var streams = 2.0
            _ = try await TestTime.until(every: .milliseconds(50)) {
                _ = try await server.create(#"{"title":"nudge"}"#)
                streams = try await server.metrics()["alertd_event_streams"] ?? -1
                return streams == 0
            }
            #expect(streams == 0)
            #expect(try await server.metrics()["alertd_waiters"] == 0)
        }
    }

    @Test("X-Request-Id: a sane one is echoed, otherwise one is generated, on every kind of response")
    func requestID() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"x"}"#)
            let targets: [(String, String, String?)] = [
                ("GET", "/healthz", nil), ("POST", "/v1/alerts", #"{"title":"y"}"#), ("GET", "/v1/alerts/\(id)", nil),
                ("GET", "/nowhere", nil), ("PUT", "/v1/alerts", nil), ("POST", "/v1/alerts", "{"),
                ("GET", "/v1/alerts?wait=x", nil), ("GET", "/metrics", nil), ("GET", "/v1/events?wait=0", nil),
                ("GET", "/v1/events?since=999", nil),
            ]
            for (method, target, body) in targets {
                let echoed = try await server.send(method, target, body: body, headers: [("X-Request-Id", "req-7f3a.B_9")])
                #expect(echoed.headers["x-request-id"] == "req-7f3a.B_9", "\(method) \(target)")
                let generated = try await server.send(method, target, body: body)
                let value = generated.headers["x-request-id"] ?? ""
                #expect(!value.isEmpty && value.utf8.count <= 64, "\(method) \(target): '\(value)'")
            }
            var generated: Set<String> = []
            for _ in 0..<20 { generated.insert(try await server.get("/healthz").headers["x-request-id"] ?? "") }
            #expect(generated.count == 20, "generated ids repeat: \(generated)")
            // Unusable ids are replaced, not echoed.
            for bad in [String(repeating: "a", count: 65), "has space", "quote\"d", "back\\slash", "ünïcode"] {
                let response = try await server.send("GET", "/healthz", headers: [("X-Request-Id", bad)])
                let value = response.headers["x-request-id"] ?? ""
                #expect(value != bad && !value.isEmpty && value.utf8.count <= 64, "'\(bad)' → '\(value)'")
            }
            let sixtyFour = String(repeating: "b", count: 64)
            #expect(try await server.send("GET", "/healthz", headers: [("X-Request-Id", sixtyFour)])
                .headers["x-request-id"] == sixtyFour)
            // The event stream's head carries it too.
            let stream = try SSEClient(port: server.port, headers: [("X-Request-Id", "stream-1")])
            defer { stream.disconnect() }
            #expect(try await stream.head().headers["x-request-id"] == "stream-1")
        }
    }
}
