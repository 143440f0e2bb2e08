@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing

/// An open alertd (no tokens) and web pages: a cross-site `fetch` and DNS rebinding are refused, `curl` is not.
@Suite("Access control: web pages and an open alertd")
struct BrowserAccessTests {
    /// A request as a browser sends it: `Host` and `Origin` as given, a `text/plain` body (no CORS preflight).
    static func browserRequest(_ method: String, _ target: String, host: String, origin: String?,
                               body: String? = nil) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let origin { head += "Origin: \(origin)\r\nSec-Fetch-Mode: no-cors\r\nSec-Fetch-Site: cross-site\r\n" }
        if let body { head += "Content-Type: text/plain;charset=UTF-8\r\nContent-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + (body ?? "")).utf8)
    }

    static let phishing = #"{"title":"Session expired","fields":[{"placeholder":"Password","secure":true}]}"#

    @Test("a page's text/plain POST carrying Origin: http://evil.example is 403 and creates nothing")
    func crossSiteWrite() async throws {
        try await LiveServer.with { server in
            let host = "127.0.0.1:\(server.port)"
            let post = try await server.raw(Self.browserRequest("POST", "/v1/alerts", host: host,
                                                                origin: "http://evil.example", body: Self.phishing))
            let problem = expectProblem(post, 403, type: "urn:alertd:problem:origin-not-allowed")
            #expect(problem["detail"]?.stringValue?.contains("http://evil.example") == true)
            #expect(problem["detail"]?.stringValue?.contains("--allow-origin") == true)
            let read = try await server.raw(Self.browserRequest("GET", "/v1/alerts?state=all", host: host,
                                                                origin: "http://evil.example"))
            _ = expectProblem(read, 403, type: "urn:alertd:problem:origin-not-allowed")
            let null = try await server.raw(Self.browserRequest("POST", "/v1/alerts", host: host, origin: "null",
                                                                body: Self.phishing))
            _ = expectProblem(null, 403, type: "urn:alertd:problem:origin-not-allowed")
            #expect(try await server.listIDs("state=all").isEmpty, "nothing was created")
        }
    }

    @Test("DNS rebinding: a Host that is another name is 403; loopback names and IP addresses are served")
    func rebinding() async throws {
        try await LiveServer.with { server in
            let port = server.port
            let created = try await server.createAlert(#"{"message":"private"}"#)
            for host in ["evil.example:\(port)", "evil.example", "127.0.0.1.evil.example:\(port)", "localhost.evil"] {
                let read = try await server.raw(Self.browserRequest("GET", "/v1/alerts", host: host, origin: nil))
                let problem = expectProblem(read, 403, type: "urn:alertd:problem:host-not-allowed")
                #expect(!read.text.contains(created["id"]?.stringValue ?? "-"), "\(host)")
                #expect(problem["detail"]?.stringValue?.contains("--allow-host") == true)
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST.", "app.localhost:\(port)",
                         "[::1]:\(port)", "10.1.2.3:\(port)", "127.0.0.1"] {
                let read = try await server.raw(Self.browserRequest("GET", "/v1/alerts", host: host, origin: nil))
                #expect(read.status == 200, "Host: \(host): \(read.text)")
            }
        }
    }

    @Test("curl -d (no Origin) keeps working, and --allow-origin / --allow-host let the named ones in")
    func allowed() async throws {
        try await LiveServer.with({
            $0.allowedOrigins = ["https://Dashboard.example:8443/"]
            $0.allowedHosts = ["alertd.internal"]
        }) { server in
            let curl = try await server.post("/v1/alerts", #"{"message":"from a script"}"#)
            #expect(curl.status == 201)
            let host = "alertd.internal:\(server.port)"
            let allowed = try await server.raw(Self.browserRequest("POST", "/v1/alerts", host: host,
                                                                   origin: "https://dashboard.example:8443",
                                                                   body: #"{"message":"from the dashboard"}"#))
            #expect(allowed.status == 201, "\(allowed.text)")
            let other = try await server.raw(Self.browserRequest("POST", "/v1/alerts", host: host,
                                                                 origin: "https://dashboard.example",
                                                                 body: #"{"message":"another port"}"#))
            _ = expectProblem(other, 403, type: "urn:alertd:problem:origin-not-allowed")
        }
    }

    @Test("with tokens neither check applies: a page cannot send a bearer token without CORS")
    func tokensDecide() async throws {
        try await AccessControlTests.withTokens { server in
            let bearer = "Authorization: Bearer \(AccessControlTests.ci)\r\n"
            var request = Self.browserRequest("GET", "/v1/alerts", host: "alertd.example",
                                              origin: "http://evil.example")
            request.insert(contentsOf: Array(bearer.utf8), at: request.count - 2)
            let listed = try await server.raw(request)
            #expect(listed.status == 200, "\(listed.text)")
            let anonymous = try await server.raw(Self.browserRequest("GET", "/v1/alerts", host: "alertd.example",
                                                                     origin: "http://evil.example"))
            _ = expectProblem(anonymous, 401)
        }
    }

    @Test("--allow-origin and --allow-host take only well-formed values")
    func flags() throws {
        let good = try AlertdConfiguration.command(
            arguments: ["--allow-origin", "http://a.example, https://b.example:8443", "--allow-host", "a.internal,b"],
            environment: [:])
        guard case .run(let configuration) = good else { Issue.record("not a run"); return }
        #expect(configuration.allowedOrigins == ["http://a.example", "https://b.example:8443"])
        #expect(configuration.allowedHosts == ["a.internal", "b"])
        for arguments in [["--allow-origin", "evil.example"], ["--allow-origin", "http://a.example/path"],
                          ["--allow-origin", "ftp://a.example"], ["--allow-host", "a b"], ["--allow-host", ""]] {
            #expect(throws: ConfigurationError.self, "\(arguments)") {
                _ = try AlertdConfiguration.command(arguments: arguments, environment: [:])
            }
        }
        let environment = try AlertdConfiguration.command(arguments: [], environment: [
            "ALERTD_ALLOW_ORIGIN": "http://c.example", "ALERTD_ALLOW_HOST": "c.internal",
        ])
        guard case .run(let fromEnvironment) = environment else { Issue.record("not a run"); return }
        #expect(fromEnvironment.allowedOrigins == ["http://c.example"])
        #expect(fromEnvironment.allowedHosts == ["c.internal"])
    }
}
