@testable import AlertAPI
import Foundation
import HTTPTestSupport
import JSON
import Testing

/// `--webhook-allow`: which callback destinations a producer may give, checked on the URL at create and on each
/// address the host resolves to at connect. The default admits public (`external`) addresses only.
///
/// No traffic leaves the machine: callbacks to public addresses are created and never resolved.
@Suite("Webhook allow list")
struct WebhookAllowListTests {
    static let refused = "not delivered: the callback's address is not an allowed destination (--webhook-allow)"
    static let noAnswer = "not delivered: no answer from the receiver"

    @Test("By default a literal loopback, private or link-local callback is 422 at /callback, before any traffic",
          arguments: ["http://127.0.0.1:9/x", "http://[::1]:9/x", "http://10.0.0.1/x", "https://192.168.1.1:8443/hook",
                      "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/x", "http://100.64.0.1/x",
                      "http://[fe80::1]/x", "http://[fd00::1]/x", "http://[::ffff:127.0.0.1]/x", "http://224.0.0.1/x",
                      "http://127.0.0.1@10.0.0.1/x", "ftp://127.0.0.1/x", "file:///etc/passwd", "/relative/path",
                      "not a url", "http://", ""])
    func defaultRefusesLiterals(callback: String) async throws {
        try await LiveServer.with { server in
            let response = try await server.post("/v1/alerts", #"{"title":"x","callback":\#(jsonString(callback))}"#)
            let problem = expectProblem(response, 422, pointer: "/callback", type: "urn:alertd:problem:validation-failed")
            #expect(!errorDetail(problem, at: "/callback").isEmpty)
            #expect(try await server.listIDs().isEmpty)
        }
    }

    @Test("By default public addresses and any host name are accepted at create",
          arguments: ["http://93.184.215.14/x", "https://hooks.example.com/x", "http://[2001:4860:4860::8888]/x",
                      "http://LOCALHOST:9/x"])
    func defaultAcceptsPublic(callback: String) async throws {
        try await LiveServer.with { server in
            let alert = try await server.createAlert(#"{"title":"x","callback":\#(jsonString(callback))}"#)
            #expect(alert["webhook"]?["url"] == .string(callback))
        }
    }

    /// `localhost` is accepted at create (a name may resolve to a public address); the address it resolves to is not.
    @Test("By default a name that resolves to loopback is refused at connect: nothing reaches the receiver")
    func defaultRefusesNameResolvingToLoopback() async throws {
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        try await LiveServer.with { server in
            try await Self.expectRefused(server, receiver, "http://localhost:\(receiver.port)/hook")
        }
    }

    @Test("A listed name is delivered to at public addresses only: one that resolves to loopback is refused",
          arguments: ["localhost", "localhost,private", "localhost,10.0.0.0/8,external"])
    func listedNameCheckedAfterResolving(list: String) async throws {
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        let policy = try #require(WebhookPolicy(list: list))
        try await LiveServer.with({ $0.webhooks = policy }) { server in
            try await Self.expectRefused(server, receiver, "http://localhost:\(receiver.port)/hook")
        }
    }

    @Test("loopback admits a name that resolves to it, 127.0.0.0/8 and ::1; [::1] and a CIDR match too",
          arguments: [("loopback", "127.0.0.1", "localhost"), ("loopback", "::1", "[::1]"),
                      ("loopback", "127.0.0.2", "127.0.0.2"), ("[::1]", "::1", "[::1]"), ("::1/128", "::1", "[::1]"),
                      ("127.0.0.0/30,hooks.example.com", "127.0.0.1", "127.0.0.1"), ("*", "127.0.0.1", "localhost")])
    func loopbackDelivered(list: String, listen: String, host: String) async throws {
        let receiver = try WebhookReceiver(statuses: [200], host: listen)
        defer { receiver.stop() }
        let policy = try #require(WebhookPolicy(list: list))
        try await LiveServer.with({ $0.webhooks = policy }) { server in
            let id = try await server.create(#"{"title":"x","callback":"http://\#(host):\#(receiver.port)/hook"}"#)
            _ = try await server.delete("/v1/alerts/\(id)")
            let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
            #expect(seen.last?["state"] == .string("delivered"), "\(list): \(seen)")
            #expect(receiver.requests.count == 1)
        }
    }

    @Test("A closed port, a silent close and a non-HTTP service read the same in lastError")
    func lastErrorTellsNoPortApart() async throws {
        let closed = try WebhookReceiver()
        let closedPort = closed.port
        closed.stop()  // shut down for reading: connecting is refused from now on
        let hangUp = try WebhookReceiver { _ in .bytes([]) }
        defer { hangUp.stop() }
        let ssh = try WebhookReceiver { _ in .bytes(Array("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n".utf8)) }
        defer { ssh.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            var errors: [String: JSONValue] = [:]
            for (name, port) in [("closed", closedPort), ("hang-up", hangUp.port), ("ssh", ssh.port)] {
                let id = try await server.create(#"{"title":"x","callback":"http://127.0.0.1:\#(port)/x"}"#)
                _ = try await server.delete("/v1/alerts/\(id)")
                let seen = try await server.watchWebhook(id) { ($0["attempts"]?.int64Value ?? 0) >= 1 }
                errors[name] = seen.last?["lastError"]
            }
            #expect(errors.count == 3 && errors.values.allSatisfy { $0 == .string(Self.noAnswer) }, "\(errors)")
        }
    }

    @Test("--webhook-allow parses named sets, host names, IPv4 and IPv6 networks; the default is external")
    func commandLine() throws {
        func policy(_ arguments: [String], _ environment: [String: String] = [:]) throws -> WebhookPolicy {
            guard case .run(let configuration) = try AlertdConfiguration.command(arguments: arguments,
                                                                                environment: environment)
            else { throw RawHTTPError(description: "not a run command") }
            return configuration.webhooks
        }
        #expect(try policy([]).rules == [.set(.external)])
        #expect(try policy(["--webhook-allow", "loopback,private,external,*"]).rules
            == [.set(.loopback), .set(.private), .set(.external), .set(.all)])
        let mixed = try policy(["--webhook-allow=Hooks.Example.com , 10.0.0.0/8,[::1], fd00::/8"]).rules
        #expect(mixed.count == 4)
        #expect(mixed.first == .host("hooks.example.com"))
        #expect(try policy(["--webhook-allow", "a.test"], ["ALERTD_WEBHOOK_ALLOW": "b.test"]).rules == [.host("a.test")],
                "the flag wins over the environment")
        for bad in ["", ",", " , ", "a, ,b", "10.0.0.0/33", "10.0.0.0/x", "300.1.1.1/8", "10.0.0/8", "a.test/8",
                    "::1/129", "[::1", "300.1.1.1", "a b", "exter nal"] {
            #expect(throws: ConfigurationError.self, "'\(bad)'") {
                _ = try AlertdConfiguration.command(arguments: ["--webhook-allow", bad], environment: [:])
            }
        }
        #expect(AlertdConfiguration.usage.contains("--webhook-allow"))
    }

    @Test("What each list admits, at create and at connect")
    func admits() throws {
        let list = try #require(WebhookPolicy(list: "hooks.internal,10.1.0.0/16,[fd00::1]"))
        #expect(list.problem(with: "http://hooks.internal/x") == nil)
        #expect(list.problem(with: "http://10.1.2.3/x") == nil)
        #expect(list.problem(with: "http://[fd00::1]/x") == nil)
        #expect(list.problem(with: "http://other.example/x") == nil, "a name may resolve into 10.1.0.0/16")
        #expect(list.problem(with: "http://10.2.0.1/x") != nil)
        #expect(list.admits("10.1.9.9", for: "other.example"))
        #expect(list.admits("93.184.215.14", for: "hooks.internal"), "a listed name at a public address")
        #expect(!list.admits("93.184.215.14", for: "other.example"))
        #expect(!list.admits("127.0.0.1", for: "hooks.internal"))
        #expect(!list.admits("169.254.169.254", for: "hooks.internal"))
        let names = try #require(WebhookPolicy(list: "hooks.example.com"))
        #expect(names.problem(with: "http://hooks.example.com/x") == nil)
        #expect(names.problem(with: "http://evil.example.com/x") != nil, "only listed names, without address rules")
        #expect(names.problem(with: "http://93.184.215.14/x") != nil)
        let external = WebhookPolicy.external
        for address in ["127.0.0.1", "::1", "10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.169.254", "0.0.0.0",
                        "100.64.0.1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
                        "2002:7f00:1::", "ff02::1", "255.255.255.255", "::", "fe80::1%lo", "not an address"] {
            #expect(!external.admits(address, for: "x.example"), "\(address)")
        }
        for address in ["93.184.215.14", "8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8"] {
            #expect(external.admits(address, for: "x.example"), "\(address)")
        }
    }

    /// Creates an alert with `callback`, resolves it, and expects its attempt refused by the allow list.
    private static func expectRefused(_ server: LiveServer, _ receiver: WebhookReceiver, _ callback: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let id = try await server.create(#"{"title":"x","callback":"\#(callback)"}"#, sourceLocation: sourceLocation)
        _ = try await server.delete("/v1/alerts/\(id)")
        let seen = try await server.watchWebhook(id) { ($0["attempts"]?.int64Value ?? 0) >= 1 }
        #expect(seen.last?["lastError"] == .string(refused), "\(seen)", sourceLocation: sourceLocation)
        #expect(receiver.requests.isEmpty, "delivered to a destination the list does not admit",
                sourceLocation: sourceLocation)
    }
}
