@testable import AlertCore
import Testing

@Suite("Listing")
struct ListingTests {
    /// A store with alerts 0...5 addressed alternately to `a` and `b`; alerts 1 and 4 resolved.
    func fixture() async throws -> (AlertStore, [Alert]) {
        let store = AlertStore()
        var alerts: [Alert] = []
        for number in 0..<6 {
            alerts.append(try await store.create(draft(title: "A\(number)", presenter: number % 2 == 0 ? "a" : "b")))
        }
        _ = try await store.dismiss(alerts[4].id)
        _ = try await store.answer(alerts[1].id, with: AnswerDraft(choice: .index(0)))
        return (store, alerts)
    }

    func titles(_ store: AlertStore, _ query: ListQuery) async -> [String] {
        await store.list(query).alerts.map(\.title)
    }

    @Test("pending alerts, oldest first, with the change index")
    func pendingGlobal() async throws {
        let (store, _) = try await fixture()
        let page = await store.list(ListQuery())
        #expect(page.alerts.map(\.title) == ["A0", "A2", "A3", "A5"])
        #expect(page.alerts.allSatisfy { $0.state == .pending })
        #expect(page.index == 8)
    }

    @Test("pending alerts per presenter")
    func pendingPerPresenter() async throws {
        let (store, _) = try await fixture()
        #expect(await titles(store, ListQuery(presenter: "a")) == ["A0", "A2"])
        #expect(await titles(store, ListQuery(presenter: "b")) == ["A3", "A5"])
        #expect(await titles(store, ListQuery(presenter: "nobody")) == [])
    }

    @Test("resolved alerts by creation order, not resolution order")
    func resolved() async throws {
        let (store, _) = try await fixture()
        #expect(await titles(store, ListQuery(state: .resolved)) == ["A1", "A4"])
        #expect(await titles(store, ListQuery(state: .resolved, presenter: "a")) == ["A4"])
    }

    @Test("all merges pending and resolved by creation order")
    func all() async throws {
        let (store, _) = try await fixture()
        #expect(await titles(store, ListQuery(state: .all)) == ["A0", "A1", "A2", "A3", "A4", "A5"])
        #expect(await titles(store, ListQuery(state: .all, presenter: "b")) == ["A1", "A3", "A5"])
    }

    @Test("owner filters alone and with a presenter, pending and resolved; idempotency keys are per owner")
    func owners() async throws {
        let store = AlertStore()
        var alerts: [Alert] = []
        for number in 0..<6 {
            let draft = draft(title: "O\(number)", presenter: number < 3 ? "a" : "b")
            alerts.append(try await store.create(draft, owner: number % 2 == 0 ? "ci" : "cron"))
        }
        _ = try await store.dismiss(alerts[2].id)
        #expect(alerts.map(\.owner) == ["ci", "cron", "ci", "cron", "ci", "cron"])
        #expect(await titles(store, ListQuery(owner: "ci")) == ["O0", "O4"])
        #expect(await titles(store, ListQuery(presenter: "b", owner: "cron")) == ["O3", "O5"])
        #expect(await titles(store, ListQuery(presenter: "a", owner: "ci")) == ["O0"])
        #expect(await titles(store, ListQuery(state: .resolved, owner: "ci")) == ["O2"])
        #expect(await titles(store, ListQuery(state: .all, owner: "ci")) == ["O0", "O2", "O4"])
        #expect(await titles(store, ListQuery(owner: "nobody")) == [])

        let first = try await store.create(draft(title: "K"), owner: "ci", idempotencyKey: "k")
        let other = try await store.create(draft(title: "K"), owner: "cron", idempotencyKey: "k")
        let replay = try await store.create(draft(title: "K"), owner: "ci", idempotencyKey: "k")
        #expect(!first.replayed && !other.replayed && replay.replayed)
        #expect(first.alert.id != other.alert.id && first.alert.id == replay.alert.id)
    }

    @Test("limit is honoured for every state")
    func limit() async throws {
        let (store, _) = try await fixture()
        #expect(await titles(store, ListQuery(limit: 2)) == ["A0", "A2"])
        #expect(await titles(store, ListQuery(state: .resolved, limit: 1)) == ["A1"])
        #expect(await titles(store, ListQuery(state: .all, limit: 3)) == ["A0", "A1", "A2"])
        #expect(await titles(store, ListQuery(limit: 0)) == [])
    }

    @Test("the pending index stays in arrival order through heavy churn")
    func churn() async throws {
        let store = AlertStore()
        var alerts: [Alert] = []
        for number in 0..<3000 {
            alerts.append(try await store.create(draft(title: "\(number)", presenter: "p\(number % 3)")))
        }
        for alert in alerts where alert.sequence % 5 != 0 {
            _ = try await store.dismiss(alert.id)
        }
        let expected = alerts.filter { $0.sequence % 5 == 0 }
        #expect(await store.list(ListQuery(limit: 1000)).alerts == expected)
        let forP1 = expected.filter { $0.presenter == "p1" }
        #expect(await store.list(ListQuery(presenter: "p1", limit: 1000)).alerts == forP1)
    }
}
