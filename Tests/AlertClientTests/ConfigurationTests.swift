import AlertAPI
import AlertServer
import AlertClient
import AlertdTestSupport
import Foundation
import Testing

@Suite("AlertClient configuration and errors")
struct ConfigurationTests {
    @Test("fromEnvironment reads ALERTD_URL, else the default; a bad one is an error naming it")
    func environment() throws {
        #expect(try AlertClient.fromEnvironment([:]).baseURL.absoluteString == "http://127.0.0.1:8080")
        #expect(try AlertClient.fromEnvironment(["ALERTD_URL": "http://example.com:9"]).baseURL.absoluteString
                == "http://example.com:9")
        let error = #expect(throws: AlertClientError.self) {
            try AlertClient.fromEnvironment(["ALERTD_URL": "::nonsense::"])
        }
        #expect(error?.kind == .configuration)
        #expect(error?.reason.contains("ALERTD_URL '::nonsense::'") == true, "\(String(describing: error))")
    }

    @Test("an unreadable or empty ALERTD_TOKEN_FILE is an error naming it, not a client without a token")
    func unreadableTokenFile() throws {
        let missing = "/nonexistent/alertd-token-\(UUID())"
        let unreadable = #expect(throws: AlertClientError.self) {
            try AlertClient.fromEnvironment(["ALERTD_TOKEN_FILE": missing])
        }
        #expect(unreadable?.kind == .configuration)
        #expect(unreadable?.reason.contains("ALERTD_TOKEN_FILE '\(missing)'") == true)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-empty-token-\(UUID())")
        try "\n".write(to: empty, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: empty) }
        let blank = #expect(throws: AlertClientError.self) {
            try AlertClient.fromEnvironment(["ALERTD_TOKEN_FILE": empty.path])
        }
        #expect(blank?.reason.contains("has no token") == true)
    }

    @Test("parseBaseURL takes http(s) URLs and host:port")
    func parseBaseURL() {
        #expect(AlertClient.parseBaseURL("http://127.0.0.1:8080")?.absoluteString == "http://127.0.0.1:8080")
        #expect(AlertClient.parseBaseURL("localhost:9000")?.absoluteString == "http://localhost:9000")
        #expect(AlertClient.parseBaseURL("https://alerts.example.com/prefix")?.path == "/prefix")
        #expect(AlertClient.parseBaseURL("ftp://x") == nil)
        #expect(AlertClient.parseBaseURL("http://") == nil)
        #expect(AlertClient.parseBaseURL("http://h/?q=1") == nil)
    }

    @Test("pollWait is clamped to what the server accepts")
    func pollWaitClamped() {
        #expect(AlertClient(baseURL: AlertClient.defaultURL, pollWait: 1000).pollWait == 300)
        #expect(AlertClient(baseURL: AlertClient.defaultURL, pollWait: -1).pollWait == 0)
    }

    @Test("a base URL with a trailing slash still reaches the API")
    func trailingSlash() async throws {
        try await LiveAlertd.with { server in
            let client = AlertClient(baseURL: URL(string: server.url.absoluteString + "/")!)
            try await client.health()
            #expect(try await client.list().alerts.isEmpty)
        }
    }

    @Test("errors describe themselves")
    func descriptions() {
        #expect(AlertClientError.cancelled.kind == .cancelled)
        #expect(AlertClientError.timedOut.description.contains("timed out"))
    }

    @Test("models decode the documented JSON, and encode it back with nulls")
    func models() throws {
        let json = """
            {"id":"q3l8Vd0bXyZ7kP2mNw4sTA","title":"Login","message":"","style":"alert","tag":9007199254740993,
             "presenter":"root","animated":true,
             "buttons":[{"index":0,"title":"Cancel","style":"cancel"},{"index":1,"title":"OK","style":"default"}],
             "fields":[{"index":0,"text":null,"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}],
             "state":"pending","result":null,"createdAt":"2026-11-30T09:34:28.123Z","expiresAt":null}
            """
        let alert = try JSONDecoder().decode(RemoteAlert.self, from: Data(json.utf8))
        #expect(alert.tag == 9_007_199_254_740_993)
        #expect(alert.fields[0].text == nil && alert.cancelButton?.title == "Cancel")
        let encoded = String(decoding: try JSONEncoder().encode(alert), as: UTF8.self)
        #expect(encoded.contains("\"result\":null") && encoded.contains("\"expiresAt\":null"))
        #expect(encoded.contains("\"text\":null"))
        #expect(try JSONDecoder().decode(RemoteAlert.self, from: Data(encoded.utf8)) == alert)

        let problem = try JSONDecoder().decode(
            Problem.self, from: Data(#"{"type":"about:blank","title":"Not Found","status":404,"detail":"no"}"#.utf8))
        #expect(problem.errors.isEmpty && problem.result == nil)
    }
}

/// A client with a bearer token against an alertd that has tokens.
@Suite("AlertClient with tokens")
struct TokenTests {
    @Test("the token goes with every request; without it the server's 401 comes back as a server error")
    func bearerToken() async throws {
        try await TestAlertd.with({
            $0.tokens = try! AccessTokens(parsing: "ci:producer:client-test-token-0001", source: "test")
        }) { app in
            let url = URL(string: app.url)!
            let client = AlertClient(baseURL: url, token: "client-test-token-0001")
            let alert = try await client.create(AlertInput(message: "with a token"))
            #expect(alert.owner == "ci")
            #expect(try await client.alert(alert.id).id == alert.id)
            let anonymous = AlertClient(baseURL: url)
            await #expect(throws: AlertClientError.self) { try await anonymous.list() }
            do {
                _ = try await anonymous.list()
            } catch let error as AlertClientError {
                #expect(error.status == 401)
            }
        }
    }

    @Test("ALERTD_TOKEN wins over ALERTD_TOKEN_FILE, whose first line is the token")
    func tokenFromEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertctl-token-\(UUID())")
        try "from-the-file-0000001\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try AlertClient.token(from: ["ALERTD_TOKEN_FILE": file.path]) == "from-the-file-0000001")
        #expect(try AlertClient.token(from: ["ALERTD_TOKEN": "direct", "ALERTD_TOKEN_FILE": file.path]) == "direct")
        #expect(try AlertClient.token(from: [:]) == nil)
        #expect(try AlertClient.fromEnvironment(["ALERTD_TOKEN": "direct"]).token == "direct")
    }
}
