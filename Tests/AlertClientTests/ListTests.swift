import AlertClient
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

@Suite("AlertClient.list and health")
struct ListTests {
    @Test("lists pending alerts oldest first, filtered by presenter and limited; secure text is nil")
    func listFilters() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let first = try await client.create(loginInput)
            let second = try await client.create(AlertInput(message: "two", presenter: "ops"))
            let third = try await client.create(AlertInput(message: "three", presenter: "ops"))
            let all = try await client.list()
            #expect(all.alerts.map(\.id) == [first.id, second.id, third.id])
            #expect(all.alerts[0].fields.map(\.text) == ["", nil])
            #expect(try await client.list(presenter: "ops").alerts.map(\.id) == [second.id, third.id])
            #expect(try await client.list(limit: 1).alerts.map(\.id) == [first.id])
            _ = try await client.answer(first.id, buttonIndex: 1, values: ["alice", "secret"])
            #expect(try await client.list().alerts.map(\.id) == [second.id, third.id])
            let resolved = try await client.list(state: "resolved")
            #expect(resolved.alerts.map(\.id) == [first.id])
            #expect(resolved.alerts[0].result?.values == ["alice", nil])
            #expect(try await client.list(state: "all").alerts.count == 3)
        }
    }

    @Test("the blocking query returns when the store changes past the index")
    func blockingQuery() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let before = try await client.list()
            let start = ContinuousClock.now
            async let changed = client.list(index: before.index, wait: 30)
            await server.waitForWaiters(1)
            let alert = try await server.client().create(AlertInput(message: "new"))
            let after = try await changed
            #expect(after.index > before.index)
            #expect(after.alerts.map(\.id) == [alert.id])
            #expect((ContinuousClock.now - start) / .seconds(1) < TestTime.sooner(than: 30),
                    "woken, not at the wait's end")
            // Nothing changes: held for the wait, then the same index.
            let held = ContinuousClock.now
            let same = try await client.list(index: after.index, wait: 1)
            #expect(same.index == after.index)
            #expect(ContinuousClock.now - held >= .milliseconds(900))
        }
    }

    @Test("listAll follows next through three 1 MiB pages of the largest alerts: every one, in order, once")
    func listAllFollowsPages() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            // One page ends at 1 MiB, far short of the limit; its next takes the following page.
            let page = try await client.list(limit: 1000)
            let next = try #require(page.next, "120 alerts of 19 KB are more than a page")
            #expect(page.alerts.map(\.id) == Array(created.prefix(page.alerts.count)))
            let second = try await client.list(limit: 1000, after: next)
            #expect(second.alerts.first?.id == created[page.alerts.count])
            let all = try await client.listAll(limit: 1000)
            #expect(all.alerts.map(\.id) == created, "\(all.alerts.count) listed of \(created.count)")
            #expect(all.next == nil, "the list is complete")
            #expect(all.index == page.index)
            // The limit is the whole list's, over pages: 110 spans three pages and says that more follow.
            let limited = try await client.listAll(limit: 110)
            #expect(limited.alerts.map(\.id) == Array(created.prefix(110)))
            #expect(limited.next != nil)
            #expect(try await client.listAll(limit: 10).alerts.map(\.id) == Array(created.prefix(10)))
        }
    }

    @Test("a blocking listAll wakes on a change and returns every page, the new alert last")
    func blockingListAll() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            let before = try await client.listAll(limit: 1000)
            async let changed = client.listAll(limit: 1000, index: before.index, wait: 30)
            await server.waitForWaiters(1)
            let alert = try await server.client().create(AlertInput(message: "new"))
            let after = try await changed
            #expect(after.index > before.index)
            #expect(after.alerts.map(\.id) == created + [alert.id])
        }
    }

    @Test("an alert resolved while listAll reads the later pages wakes the next blocking query at once")
    func changeBetweenPages() async throws {
        try await LiveAlertd.with { server in
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            let dismissed = Flag()
            // Before the second page is sent, the first page's oldest alert is dismissed (over HTTP, not through
            // the proxy): the list still shows it, as it was when its page was read.
            let proxy = try FlakyProxy(upstream: server.port) { chunk in
                guard String(decoding: chunk, as: UTF8.self).contains("after="), !dismissed.isSet else { return }
                dismissed.set()
                let done = DispatchSemaphore(value: 0)
                Task {
                    _ = try? await RawHTTP.exchange(RawHTTP.request("DELETE", "/v1/alerts/\(created[0])"),
                                                    port: server.port)
                    done.signal()
                }
                done.wait()
            }
            let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!)
            let list = try await client.listAll(limit: 1000)
            #expect(dismissed.isSet)
            #expect(list.alerts.map(\.id) == created, "each alert as its page showed it")
            // The list's index is the first page's, from before the dismissal: the blocking query answers at once.
            let start = ContinuousClock.now
            let next = try await client.listAll(limit: 1000, index: list.index, wait: 30)
            #expect((ContinuousClock.now - start) / .seconds(1) < TestTime.sooner(than: 30),
                    "woken by the change between the pages, not at the wait's end")
            #expect(next.alerts.map(\.id) == Array(created.dropFirst()))
        }
    }

    @Test("bad query parameters are .server 400 naming the parameter")
    func badParameters() async throws {
        try await LiveAlertd.with { server in
            let error = await #expect(throws: AlertClientError.self) {
                try await server.client().list(state: "sideways")
            }
            #expect(error?.status == 400)
            #expect(error?.problem?.errors.first?.parameter == "state")
        }
    }

    @Test("health succeeds against a server and fails fast as .unreachable without one")
    func health() async throws {
        try await LiveAlertd.with { server in
            try await server.client().health()
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: AlertClientError.self) {
            try await AlertClient(baseURL: URL(string: "http://127.0.0.1:1")!).health()
        }
        #expect(error?.kind == .unreachable)
        #expect(ContinuousClock.now - start < TestTime.bound(.seconds(10)))
    }

    @Test("list and health work again after the server restarts on the same port")
    func reconnectAfterRestart() async throws {
        let first = try LiveAlertd.start()
        let port = first.port
        let client = first.client()
        _ = try await client.create(AlertInput(message: "before"))
        #expect(try await client.list().alerts.count == 1)
        await first.app.shutdown()
        let down = await #expect(throws: AlertClientError.self) { try await client.health() }
        #expect(down?.kind == .unreachable)
        let second = try LiveAlertd.start(port: port)
        defer { Task { await second.app.shutdown() } }
        try await client.health()
        let list = try await client.list()
        #expect(list.alerts.isEmpty, "the new server starts empty")
        _ = try await client.create(AlertInput(message: "after"))
        #expect(try await client.list().alerts.map(\.message) == ["after"])
        await second.app.shutdown()
    }

    @Test("a server that never answers gives .timedOut after the request time-out, plus the wait")
    func requestTimeout() async throws {
        let silent = try SilentServer()
        let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:\(silent.port)")!, requestTimeout: 1)
        var start = ContinuousClock.now
        let plain = await #expect(throws: AlertClientError.self) { try await client.health() }
        #expect(plain?.kind == .timedOut)
        // URLSession's own request time-out, which a client that ignored its requestTimeout would wait, is 60 s.
        #expect((ContinuousClock.now - start) / .seconds(1) < TestTime.sooner(than: 60),
                "\(ContinuousClock.now - start)")
        start = ContinuousClock.now
        let waiting = await #expect(throws: AlertClientError.self) { try await client.response("x", wait: 2) }
        #expect(waiting?.kind == .timedOut)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(2800) && elapsed / .seconds(1) < 2 + TestTime.sooner(than: 60), "\(elapsed)")
    }
}
