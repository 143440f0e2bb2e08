@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing

/// Bearer tokens and roles: who may create, read, answer and dismiss, and who sees secure values.
@Suite("Access control", .spawnsProcesses)
struct AccessControlTests {
    static let ci = "ci-producer-token-0001"
    static let other = "other-producer-token-02"
    static let alice = "alice-responder-token-03"
    static let root = "root-admin-token-000004"
    static let tokens = "ci:producer:\(ci),other:producer:\(other),alice:responder:\(alice),root:admin:\(root)"

    static let login = #"{"title":"Login","buttons":["Cancel","OK"],"fields":[{"placeholder":"User"},"#
        + #"{"placeholder":"Password","secure":true}]}"#

    /// A server with the four tokens above; `configure` adjusts the rest.
    static func withTokens(_ configure: @escaping (inout AlertdConfiguration) -> Void = { _ in },
                           _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with({
            $0.tokens = try! AccessTokens(parsing: tokens, source: "test")
            configure(&$0)
        }, body)
    }

    @Test("without a token every API request is 401 with a Bearer challenge; health and the spec stay open")
    func missingToken() async throws {
        try await Self.withTokens { server in
            for (method, target) in [("GET", "/v1/alerts"), ("POST", "/v1/alerts"), ("GET", "/v1/events?wait=0"),
                                     ("GET", "/metrics"), ("GET", "/v1/alerts/abc"), ("DELETE", "/v1/alerts/abc")] {
                let response = try await server.send(method, target, body: method == "POST" ? #"{"message":"x"}"# : nil)
                _ = expectProblem(response, 401, type: "urn:alertd:problem:unauthorized")
                #expect(response.headers["www-authenticate"] == #"Bearer realm="alertd""#, "\(method) \(target)")
            }
            #expect(try await server.get("/healthz").status == 200)
            #expect(try await server.get("/openapi.yaml").status == 200)
        }
    }

    @Test("a wrong token, or another scheme, is 401 and the token is not echoed")
    func wrongToken() async throws {
        try await Self.withTokens { server in
            let wrong = try await server.send("GET", "/v1/alerts", headers: [("Authorization", "Bearer nope-nope-nope-nope")])
            _ = expectProblem(wrong, 401, type: "urn:alertd:problem:unauthorized")
            #expect(wrong.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
            #expect(!wrong.text.contains("nope-nope"))
            // One character short of a real token: compared whole, not by prefix.
            let prefix = try await server.send("GET", "/v1/alerts",
                                               headers: [("Authorization", "Bearer " + Self.ci.dropLast())])
            #expect(prefix.status == 401)
            let basic = try await server.send("GET", "/v1/alerts", headers: [("Authorization", "Basic \(Self.ci)")])
            _ = expectProblem(basic, 401)
            let lowercase = try await server.send("GET", "/v1/alerts", headers: [("Authorization", "bearer \(Self.ci)")])
            #expect(lowercase.status == 200, "the scheme is case-insensitive (RFC 9110)")
        }
    }

    @Test("a role that may not do something gets 403 naming the role")
    func forbiddenByRole() async throws {
        try await Self.withTokens { server in
            let create = try await server.send("POST", "/v1/alerts", body: #"{"message":"x"}"#, as: Self.alice)
            let problem = expectProblem(create, 403, type: "urn:alertd:problem:forbidden")
            #expect(problem["detail"]?.stringValue == "the responder role may not create alerts")
            #expect(try await server.list(as: Self.ci).isEmpty)
            let id = try await server.create(Self.login, as: Self.ci)
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.ci), 403)
            _ = expectProblem(try await server.send("DELETE", "/v1/alerts/\(id)", as: Self.alice), 403)
            _ = expectProblem(try await server.send("GET", "/metrics", as: Self.ci), 403)
            _ = expectProblem(try await server.send("GET", "/metrics", as: Self.alice), 403)
            #expect(try await server.send("GET", "/metrics", as: Self.root).status == 200)
            // Nothing changed: the alert is still pending.
            #expect(try await server.send("GET", "/v1/alerts/\(id)", as: Self.ci).json["state"]?.stringValue == "pending")
        }
    }

    @Test("a producer sees, waits for and dismisses only its own alerts, and lists only those")
    func producersOwnAlerts() async throws {
        try await Self.withTokens { server in
            let mine = try await server.create(#"{"message":"mine"}"#, as: Self.ci)
            let theirs = try await server.create(#"{"message":"theirs"}"#, as: Self.other)
            let created = try await server.send("GET", "/v1/alerts/\(mine)", as: Self.ci)
            #expect(created.json["owner"]?.stringValue == "ci")
            for target in ["/v1/alerts/\(theirs)", "/v1/alerts/\(theirs)/response", "/v1/alerts/\(theirs)?wait=5",
                           "/v1/alerts/\(theirs)/response?wait=5"] {
                _ = expectProblem(try await server.send("GET", target, as: Self.ci), 403)
            }
            _ = expectProblem(try await server.send("DELETE", "/v1/alerts/\(theirs)", as: Self.ci), 403)
            #expect(try await server.list(as: Self.ci) == [mine])
            #expect(try await server.list(as: Self.other) == [theirs])
            #expect(try await server.list(as: Self.alice) == [mine, theirs])
            #expect(try await server.list(as: Self.root, "state=all") == [mine, theirs])
            #expect(try await server.send("DELETE", "/v1/alerts/\(mine)", as: Self.ci).status == 200)
            #expect(try await server.list(as: Self.ci, "state=resolved") == [mine])
            // The other producer's alert was never touched.
            #expect(try await server.send("GET", "/v1/alerts/\(theirs)", as: Self.root).json["state"]?.stringValue
                    == "pending")
        }
    }

    @Test("secure values: the producer and admins see them, the responder only in its own answer")
    func secureValues() async throws {
        try await Self.withTokens { server in
            let id = try await server.create(Self.login, as: Self.ci)
            let waiter = Task { try await server.send("GET", "/v1/alerts/\(id)/response?wait=10", as: Self.ci) }
            let answer = try await server.send("POST", "/v1/alerts/\(id)/response",
                                               body: #"{"button":"OK","values":["alice","hunter2"]}"#, as: Self.alice)
            #expect(answer.status == 200)
            #expect(answer.json["values"] == .array([.string("alice"), .string("hunter2")]), "its own answer, whole")
            let woken = try await waiter.value
            #expect(woken.json["values"] == .array([.string("alice"), .string("hunter2")]), "the producer's completion")
            for token in [Self.ci, Self.root] {
                let alert = try await server.send("GET", "/v1/alerts/\(id)", as: token)
                #expect(alert.json["result"]?["values"] == .array([.string("alice"), .string("hunter2")]))
            }
            let read = try await server.send("GET", "/v1/alerts/\(id)", as: Self.alice)
            #expect(read.json["result"]?["values"] == .array([.string("alice"), .null]))
            #expect(read.json["fields"]?[1]?["text"] == .null)
            let result = try await server.send("GET", "/v1/alerts/\(id)/response", as: Self.alice)
            #expect(result.json["values"] == .array([.string("alice"), .null]))
            let late = try await server.send("POST", "/v1/alerts/\(id)/response",
                                             body: #"{"button":"OK","values":["bob","pw"]}"#, as: Self.alice)
            let conflict = expectProblem(late, 409)
            #expect(conflict["result"]?["values"] == .array([.string("alice"), .null]), "the answer that won is not its own")
            #expect(!late.text.contains("hunter2") && !read.text.contains("hunter2") && !result.text.contains("hunter2"))
        }
    }

    @Test("event streams and long-polls show a producer only its own alerts")
    func producerEvents() async throws {
        try await Self.withTokens { server in
            let mine = try await server.create(#"{"message":"mine"}"#, as: Self.ci)
            _ = try await server.create(#"{"message":"theirs"}"#, as: Self.other)
            let events = try await server.send("GET", "/v1/events?since=0&wait=0", as: Self.ci)
            #expect(events.status == 200)
            let ids = (events.json.arrayValue ?? []).compactMap { $0["alert"]?["id"]?.stringValue }
            #expect(ids == [mine])
            let all = try await server.send("GET", "/v1/events?since=0&wait=0", as: Self.alice)
            #expect(all.json.arrayValue?.count == 2)
        }
    }

    @Test("idempotency keys belong to their producer: the same key from another producer creates another alert")
    func idempotencyPerProducer() async throws {
        try await Self.withTokens { server in
            let headers = [("Idempotency-Key", "deploy-42")]
            let first = try await server.send("POST", "/v1/alerts", body: #"{"message":"m"}"#, headers: headers, as: Self.ci)
            let second = try await server.send("POST", "/v1/alerts", body: #"{"message":"m"}"#, headers: headers,
                                               as: Self.other)
            let replay = try await server.send("POST", "/v1/alerts", body: #"{"message":"m"}"#, headers: headers, as: Self.ci)
            #expect(first.status == 201 && second.status == 201 && replay.status == 200)
            #expect(first.json["id"] != second.json["id"])
            #expect(first.json["id"] == replay.json["id"])
        }
    }

    @Test("without tokens alertd stays open on loopback, and alerts have no owner")
    func openOnLoopback() async throws {
        try await LiveServer.with { server in
            let alert = try await server.createAlert(#"{"message":"open"}"#)
            #expect(alert["owner"] == .null)
            #expect(try await server.get("/metrics").status == 200)
        }
    }
}

/// The real binary: where it agrees to listen without tokens, and what it logs about them.
@Suite("Access control: the alertd binary", .spawnsProcesses)
struct AccessControlProcessTests {
    @Test("without tokens it refuses a non-loopback address and says why; --insecure overrides")
    func refusesOpenBeyondLoopback() async throws {
        let refused = try await AlertdProcess.run(["--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("refusing to listen on 0.0.0.0 without access tokens"))
        #expect(refused.standardError.contains("--insecure"))

        let insecure = try await AlertdProcess.start(arguments: ["--host", "0.0.0.0", "--insecure"])
        #expect(try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: insecure.port).status == 200)
        insecure.send(SIGTERM)
        #expect(try await insecure.exitStatus(timeout: 15) == 0)
        #expect(insecure.standardError.contains("serving without access tokens on a non-loopback address"))

        let guarded = try await AlertdProcess.start(arguments: ["--host", "0.0.0.0"],
                                                    environment: ["ALERTD_TOKENS": AccessControlTests.tokens])
        #expect(guarded.startLines.first?.contains("listening on") == true,
                "with tokens it listens anywhere: \(guarded.standardError)")
        #expect(await guarded.stop() == 0)
    }

    @Test("a bad tokens file stops start-up with a message that names the entry but never the token")
    func badTokensFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-\(UUID()).txt")
        try "# tokens\nci:producer:\(AccessControlTests.ci)\nbob:boss:bobs-secret-token-0000\n"
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try await AlertdProcess.run(["--port", "0", "--tokens-file", file.path])
        #expect(child.status == 64)
        #expect(child.standardError.contains(
            "\(file.path) line 3: the role of 'bob' must be producer, responder, admin or monitor"), "\(child.standardError)")
        #expect(!child.standardError.contains("bobs-secret"))
    }

    @Test("A tokens file every user may write stops start-up (exit 64) and says so: anyone could add a token")
    func worldWritableTokensFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-\(UUID()).txt")
        try "ci:producer:\(AccessControlTests.ci)\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        let child = try await AlertdProcess.run(["--port", "0", "--tokens-file", file.path])
        #expect(child.status == 64)
        #expect(child.standardError.contains("the tokens file '\(file.path)' may be written by every user (mode 666)"),
                "\(child.standardError)")
        #expect(!child.standardError.contains(AccessControlTests.ci))
    }

    @Test("A tokens file that cannot be read says why: missing, or not a file")
    func unreadableTokensFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-dir-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("tokens").path
        for (path, reason) in [(missing, "No such file or directory"), (directory.path, "Is a directory")] {
            let child = try await AlertdProcess.run(["--port", "0", "--tokens-file", path])
            #expect(child.status == 64)
            #expect(child.standardError.contains("cannot read the tokens file '\(path)': \(reason)"),
                    "\(child.standardError)")
        }
    }

    @Test("ALERTD_TOKENS errors name the entry; a file's, the line and the entry when a line holds several")
    func errorPlaces() throws {
        func failure(_ text: String, _ source: String) -> String {
            do {
                _ = try AccessTokens(parsing: text, source: source)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(failure("ci:producer:\(AccessControlTests.ci),bob:boss:\(AccessControlTests.root)", "ALERTD_TOKENS")
            .hasPrefix("ALERTD_TOKENS entry 2: the role of 'bob'"))
        #expect(failure("# a, comment\r\n\r\nci:producer:\(AccessControlTests.ci)\r\nx:admin:\(AccessControlTests.root),bob:boss:\(AccessControlTests.alice)\n",
                        "tokens").hasPrefix("tokens line 4, entry 2: the role of 'bob'"))
        #expect(failure("only:admin:short", "ALERTD_TOKENS").hasPrefix("ALERTD_TOKENS: the token of 'only'"))
    }

    @Test("monitor may read /metrics and /healthz and nothing else")
    func monitorRole() async throws {
        let monitor = "prometheus-monitor-token-05"
        try await LiveServer.with({
            $0.tokens = try! AccessTokens(parsing: AccessControlTests.tokens + ",prometheus:monitor:\(monitor)", source: "test")
        }) { server in
            let id = try await server.create(#"{"message":"m"}"#, as: AccessControlTests.ci)
            #expect(try await server.send("GET", "/metrics", as: monitor).status == 200)
            #expect(try await server.send("GET", "/healthz", as: monitor).status == 200)
            for (method, target, body) in [("GET", "/v1/alerts", nil), ("POST", "/v1/alerts", #"{"message":"x"}"#),
                                           ("GET", "/v1/alerts/\(id)", nil), ("GET", "/v1/alerts/\(id)/response", nil),
                                           ("POST", "/v1/alerts/\(id)/response", #"{"buttonIndex":0}"#),
                                           ("DELETE", "/v1/alerts/\(id)", nil), ("GET", "/v1/events?wait=0", nil)] {
                let response = try await server.send(method, target, body: body, as: monitor)
                expectProblem(response, 403, type: "urn:alertd:problem:forbidden")
            }
            #expect(try await server.send("GET", "/v1/alerts/\(id)", as: AccessControlTests.ci).json["state"] == .string("pending"),
                    "nothing it tried changed anything")
        }
    }

    @Test("The start line says the auth mode and how many tokens are loaded, from where")
    func startLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-\(UUID()).txt")
        try "ci:producer:\(AccessControlTests.ci)\nalice:responder:\(AccessControlTests.alice)\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let withTokens = try await AlertdProcess.start(arguments: ["--tokens-file", file.path])
        defer { withTokens.send(SIGKILL) }
        let open = try await AlertdProcess.start()
        defer { open.send(SIGKILL) }
        let expected = "alertd: auth: bearer tokens: 2 tokens loaded from --tokens-file \(file.path)"
        #expect(await TestTime.until { withTokens.standardOutput.contains(expected) },
                "\(withTokens.standardOutput)")
        #expect(await TestTime.until { open.standardOutput.contains("alertd: auth: open (no tokens)") },
                "\(open.standardOutput)")
    }

    @Test("logs name the caller, never a token, right or wrong")
    func tokensNeverLogged() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-\(UUID()).txt")
        try AccessControlTests.tokens.replacingOccurrences(of: ",", with: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let alertd = try await AlertdProcess.start(arguments: ["--tokens-file", file.path])
        let bearer = [("Authorization", "Bearer \(AccessControlTests.ci)")]
        let created = try await RawHTTP.exchange(
            RawHTTP.request("POST", "/v1/alerts", headers: bearer, body: Array(#"{"message":"m"}"#.utf8)),
            port: alertd.port)
        #expect(created.status == 201)
        let wrong = try await RawHTTP.exchange(
            RawHTTP.request("GET", "/v1/alerts", headers: [("Authorization", "Bearer wrong-token-wrong-token")]),
            port: alertd.port)
        #expect(wrong.status == 401)
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)  // its standard error is read to the end
        let log = alertd.standardError
        #expect(log.contains(#""caller":"ci""#))
        #expect(log.contains(#""status":401"#))
        for secret in [AccessControlTests.ci, AccessControlTests.alice, "wrong-token-wrong-token"] {
            #expect(!log.contains(secret))
        }
    }
}

extension LiveServer {
    /// Sends a request with `Authorization: Bearer token`.
    func send(
        _ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = [], as token: String
    ) async throws -> WireResponse {
        try await send(method, target, body: body, headers: headers + [("Authorization", "Bearer \(token)")])
    }

    /// Creates an alert as `token`'s holder; returns its id.
    func create(_ body: String, as token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await send("POST", "/v1/alerts", body: body, as: token)
        try #require(response.status == 201, "\(response.text)", sourceLocation: sourceLocation)
        return try #require(response.json["id"]?.stringValue, sourceLocation: sourceLocation)
    }

    /// The ids `token`'s holder lists.
    func list(as token: String, _ query: String = "") async throws -> [String] {
        let response = try await send("GET", "/v1/alerts" + (query.isEmpty ? "" : "?" + query), as: token)
        #expect(response.status == 200, "\(response.text)")
        return response.json.ids
    }
}
