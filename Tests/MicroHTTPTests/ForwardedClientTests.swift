import MicroHTTP
import Testing

/// `HTTPRequest.client`: which address a request counts under when reverse proxies forward it.
@Suite("Forwarded client address")
struct ForwardedClientTests {
    static let proxies = ["10.0.0.5", "10.1.0.0/16", "fd00::/8"].compactMap(IPNetwork.init)

    static func client(_ peer: String?, _ headers: [(String, String)]) -> String? {
        HTTPRequest.client(peer: peer, headers: HTTPHeaders(headers), trustedProxies: proxies)
    }

    @Test("From an untrusted peer the forwarding headers are ignored")
    func untrustedPeer() {
        #expect(Self.client("192.0.2.1", [("x-forwarded-for", "198.51.100.7")]) == "192.0.2.1")
        #expect(Self.client("192.0.2.1", [("x-real-ip", "198.51.100.7")]) == "192.0.2.1")
        #expect(HTTPRequest.client(peer: "10.0.0.5", headers: ["x-forwarded-for": "198.51.100.7"],
                                   trustedProxies: []) == "10.0.0.5", "no proxy is trusted by default")
        #expect(Self.client(nil, [("x-forwarded-for", "198.51.100.7")]) == nil)
    }

    @Test("From a trusted proxy: X-Forwarded-For read from the right, skipping trusted proxies")
    func forwardedFor() {
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "198.51.100.7")]) == "198.51.100.7")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "6.6.6.6, 198.51.100.7")]) == "198.51.100.7",
                "the client may write anything left of what the proxy appended")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "198.51.100.7, 10.1.2.3")]) == "198.51.100.7",
                "a chain of trusted proxies")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "198.51.100.7"), ("x-forwarded-for", "10.1.2.3")])
            == "198.51.100.7", "several header lines are one list")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "10.1.9.9,10.1.2.3")]) == "10.1.9.9",
                "all trusted: the left-most")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "2001:db8::1")]) == "2001:db8::1")
        #expect(Self.client("fd00::1", [("x-forwarded-for", "[2001:db8::1]")]) == "2001:db8::1")
        #expect(Self.client("::ffff:10.0.0.5", [("x-forwarded-for", "::ffff:198.51.100.7")]) == "198.51.100.7",
                "IPv4-mapped peers and entries are IPv4")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "198.51.100.7, unknown")]) == "10.0.0.5",
                "a malformed entry stops the walk at the last address read")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "garbage, 10.1.2.3")]) == "10.1.2.3")
    }

    @Test("Without X-Forwarded-For, X-Real-IP; without either, the proxy itself")
    func realIP() {
        #expect(Self.client("10.0.0.5", [("x-real-ip", " 198.51.100.7 ")]) == "198.51.100.7")
        #expect(Self.client("10.0.0.5", [("x-real-ip", "not-an-address")]) == "10.0.0.5")
        #expect(Self.client("10.0.0.5", [("x-forwarded-for", "198.51.100.8"), ("x-real-ip", "198.51.100.7")])
            == "198.51.100.8", "X-Forwarded-For wins")
        #expect(Self.client("10.0.0.5", []) == "10.0.0.5")
    }
}
