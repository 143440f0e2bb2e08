import Locking
import MicroHTTP

/// How many waiting requests (long-polls with `wait` and event streams) each client holds. A wait
/// costs no thread, but it holds a connection, a store waiter and memory until its deadline; one
/// client must not be able to hold them all.
///
/// A client is its token's name when access tokens are configured and the request carried one,
/// else its IP address; an IPv6 address counts by its /64, which one host can fill at will.
final class ClientWaits: Sendable {
    /// Most waits one client may hold; 0: no limit.
    let limit: Int
    private let counts = Lock([String: Int]())

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot for `client`; false when it holds `limit` already.
    func acquire(_ client: String) -> Bool {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            guard limit == 0 || held < limit else { return false }
            counts[client] = held + 1
            return true
        }
    }

    /// Gives back a slot taken by `acquire`.
    func release(_ client: String) {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            counts[client] = held > 1 ? held - 1 : nil
        }
    }

    /// The key a request's waits count under: `token:<name>` for a caller with a token, else
    /// `ip:<address>` (an IPv6 address reduced to its /64); nil when neither is known.
    static func key(caller: Caller, address: String?) -> String? {
        if let name = caller.name { return "token:" + name }
        guard let address else { return nil }
        return "ip:" + (IPNetwork.network64(of: address) ?? address)
    }
}
