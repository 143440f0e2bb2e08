extension HTTPRequest {
    /// The client a request comes from, given the peer that sent it and the reverse proxies trusted to
    /// name the client. From any other peer the forwarding headers are ignored (a client could write
    /// them itself), and the client is the peer.
    ///
    /// From a trusted proxy: `X-Forwarded-For` read from the right, skipping trusted proxies (each
    /// appends the address it received from), gives the first untrusted address; when every entry is a
    /// trusted proxy, the left-most. An entry that is not an IP address stops the walk: the last
    /// address read (a trusted proxy's) counts. Without `X-Forwarded-For`, a valid `X-Real-IP`; else
    /// the peer.
    /// - Parameters:
    ///   - peer: the TCP peer's address as text.
    ///   - headers: the request headers.
    ///   - trustedProxies: the networks whose peers may name the client.
    /// - Returns: the client's address, as alertd writes addresses (IPv4-mapped IPv6 as plain IPv4).
    public static func client(peer: String?, headers: HTTPHeaders, trustedProxies: [IPNetwork]) -> String? {
        guard let peer, trustedProxies.contain(peer) else { return peer }
        let forwarded = headers.filter { $0.name.caseInsensitiveEquals("x-forwarded-for") }
            .flatMap { $0.value.split(separator: ",") }
        guard !forwarded.isEmpty else {
            return headers["x-real-ip"].flatMap { IPNetwork.normalized(trimmed($0)) } ?? peer
        }
        var client = peer
        for entry in forwarded.reversed() {
            guard let address = IPNetwork.normalized(trimmed(entry)) else { break }
            client = address
            if !trustedProxies.contain(address) { break }
        }
        return client
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
