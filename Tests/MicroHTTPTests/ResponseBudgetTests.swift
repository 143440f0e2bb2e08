@testable import MicroHTTP
import Testing

/// `ResponseBudget`, the bytes of answers queued and not read yet, without libmicrohttpd: who counts where, and what
/// it refuses. `ResponseSizeTests` (AlertAPITests) runs it against clients that do not read.
@Suite("Unread response budget")
struct ResponseBudgetTests {
    static let proxy = IPNetwork("10.0.0.1")!

    @Test("A client's GET answers past its limit are refused; its writes' answers and small answers never are")
    func perClient() throws {
        let budget = ResponseBudget(perClient: 100_000, total: 0, exempt: [])
        let first = try budget.reserve(90_000, method: "GET", client: "192.0.2.1").get()
        #expect(throws: ResponseBudget.Refusal.client(limit: 100_000)) {
            try budget.reserve(20_000, method: "GET", client: "192.0.2.1").get()
        }
        #expect(throws: ResponseBudget.Refusal.client(limit: 100_000)) {
            try budget.reserve(20_000, method: "HEAD", client: "192.0.2.1").get()
        }
        _ = try budget.reserve(20_000, method: "POST", client: "192.0.2.1").get()
        _ = try budget.reserve(ResponseBudget.smallBytes, method: "GET", client: "192.0.2.1").get()
        _ = try budget.reserve(20_000, method: "GET", client: "192.0.2.2").get()
        budget.release(first)
        _ = try budget.reserve(20_000, method: "GET", client: "192.0.2.1").get()
    }

    @Test("An IPv6 client counts by its /64; a trusted proxy counts in the total only")
    func keys() throws {
        let budget = ResponseBudget(perClient: 100_000, total: 250_000, exempt: [Self.proxy])
        _ = try budget.reserve(90_000, method: "GET", client: "2001:db8:1:2::1").get()
        #expect(throws: ResponseBudget.Refusal.client(limit: 100_000)) {
            try budget.reserve(20_000, method: "GET", client: "2001:db8:1:2:ffff::9").get()
        }
        _ = try budget.reserve(90_000, method: "GET", client: "10.0.0.1").get()
        _ = try budget.reserve(60_000, method: "GET", client: "10.0.0.1").get()
        #expect(budget.heldBytes == 240_000)
        #expect(throws: ResponseBudget.Refusal.total(limit: 250_000)) {
            try budget.reserve(20_000, method: "GET", client: "2001:db8:9::1").get()
        }
    }
}
