import Locking

/// Bytes of answers queued and not yet sent, by client address (IPv6 by /64) and in all, so that clients that never read cannot
/// make the server hold unbounded memory: libmicrohttpd keeps its copy of a response body until the request completes
/// (sent whole, or the connection closed), however long the client takes to read it.
///
/// Only answers to `GET` and `HEAD` are refused (a write's answer reports what was done, and holds one alert at most);
/// an answer of `smallBytes` or less always passes, so the refusal itself does. Trusted proxies' connections count in
/// the total only: they carry many clients, and read at once.
final class ResponseBudget: Sendable {
    /// Why an answer was refused.
    enum Refusal: Error, Equatable {
        /// The client's unread answers would pass `limit` bytes.
        case client(limit: Int)
        /// Every client's would.
        case total(limit: Int)
    }

    /// What a reservation holds, to give it back.
    struct Reservation {
        let client: String?
        let bytes: Int
    }

    /// Answers this small always pass (and are counted).
    static let smallBytes = 4096

    let perClient: Int
    let total: Int
    private let exempt: [IPNetwork]
    private let held = Lock<(total: Int, perClient: [String: Int])>((0, [:]))

    /// - Parameters:
    ///   - perClient: most unread bytes one client address may have (0: no limit).
    ///   - total: most unread bytes of every client together (0: no limit).
    ///   - exempt: peers counted in the total only.
    init(perClient: Int, total: Int, exempt: [IPNetwork]) {
        self.perClient = perClient
        self.total = total
        self.exempt = exempt
    }

    /// Reserves `bytes` for an answer to `method` from `client` (the peer's address); the refusal when it would pass
    /// a limit.
    func reserve(_ bytes: Int, method: String, client: String?) -> Result<Reservation, Refusal> {
        // An IPv6 client counts by its /64, which one host can fill at will.
        let key = client.flatMap { exempt.contain($0) ? nil : IPNetwork.network64(of: $0) ?? $0 }
        let refusable = bytes > Self.smallBytes && (method == "GET" || method == "HEAD")
        return held.withLock { held in
            let mine = key.map { held.perClient[$0, default: 0] } ?? 0
            if refusable, perClient > 0, key != nil, mine + bytes > perClient {
                return .failure(.client(limit: perClient))
            }
            if refusable, total > 0, held.total + bytes > total { return .failure(.total(limit: total)) }
            held.total += bytes
            if let key { held.perClient[key] = mine + bytes }
            return .success(Reservation(client: key, bytes: bytes))
        }
    }

    /// The answer reserved for is sent, or its connection closed.
    func release(_ reservation: Reservation) {
        held.withLock { held in
            held.total -= reservation.bytes
            guard let key = reservation.client else { return }
            let left = held.perClient[key, default: 0] - reservation.bytes
            held.perClient[key] = left > 0 ? left : nil
        }
    }

    /// Unread bytes now, in all.
    var heldBytes: Int {
        held.withLock { $0.total }
    }
}
