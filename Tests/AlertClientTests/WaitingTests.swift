import AlertClient
import Foundation
import HTTPTestSupport
import Testing

@Suite("AlertClient.waitForResult")
struct WaitingTests {
    @Test("keeps long-polling across long-poll time-outs")
    func acrossTimeouts() async throws {
        try await LiveAlertd.with { server in
            let client = server.client(pollWait: 1)
            let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
            let waiter = Task { try await client.waitForResult(alert.id) }
            // Two long-polls have timed out (each a 204) and the waiter polls on.
            let timedOut = #"alertd_http_requests_total{route="/v1/alerts/{id}/response",method="GET",status="204"} "#
            #expect(try await TestTime.until(every: .milliseconds(50)) {
                let metrics = try await RawHTTP.exchange(RawHTTP.request("GET", "/metrics"), port: server.port).text
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(timedOut) }
                return (line.flatMap { Double($0.dropFirst(timedOut.count)) } ?? 0) >= 2
            })
            let answered = try await server.client().answer(alert.id, button: "Yes")
            #expect(try await waiter.value == answered)
        }
    }

    @Test("returns at once for an alert that already resolved")
    func alreadyResolved() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(AlertInput(message: "hi"))
            let result = try await client.dismiss(alert.id)
            #expect(try await client.waitForResult(alert.id) == result)
        }
    }

    @Test("an expiring alert resolves as expired")
    func expiry() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(AlertInput(title: "Quick", buttons: ["Cancel", "OK"], timeout: 0.3))
            let result = try await client.waitForResult(alert.id)
            #expect(result.resolution == "expired" && result.buttonTitle == "Cancel" && !result.isAccepted)
        }
    }

    @Test("cancelling the Task stops waiting promptly; the alert stays pending")
    func cancellation() async throws {
        try await LiveAlertd.with { server in
            let client = server.client(pollWait: 60)
            let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
            let waiter = Task { try await client.waitForResult(alert.id) }
            await server.waitForWaiters(1)
            let start = ContinuousClock.now
            waiter.cancel()
            let error = await #expect(throws: AlertClientError.self) { try await waiter.value }
            #expect((ContinuousClock.now - start) / .seconds(1) < TestTime.sooner(than: 60),
                    "returns at once, not after the 60 s poll")
            #expect(error?.kind == .cancelled)
            #expect(try await client.alert(alert.id).isPending)
            #expect(try await client.response(alert.id) == nil)
        }
    }

    @Test("a Task cancelled before it starts waiting throws .cancelled without a request")
    func cancelledBeforeStart() async throws {
        let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:1")!)
        let waiter = Task { () async throws -> RemoteResult in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.waitForResult("x")
        }
        let error = await #expect(throws: AlertClientError.self) { try await waiter.value }
        #expect(error?.kind == .cancelled)
    }

    @Test("keeps waiting while the server is briefly unreachable, then gets the answer")
    func briefOutage() async throws {
        try await LiveAlertd.with { server in
            let proxy = try FlakyProxy(upstream: server.port)
            defer { proxy.down() }
            let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!, pollWait: 1)
            let direct = server.client()
            let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
            let waiter = Task { try await client.waitForResult(alert.id) }
            await server.waitForWaiters(1)
            proxy.down()
            try await Task.sleep(for: .milliseconds(1500))  // not ordering: the outage, which the waiter lives through
            let answered = try await direct.answer(alert.id, button: "Yes")
            try proxy.up()
            let start = ContinuousClock.now
            #expect(try await waiter.value == answered)
            // Back-off is at most 5 s (here less: the outage was short); generous for a loaded machine.
            #expect(ContinuousClock.now - start < TestTime.bound(.seconds(12)))
        }
    }

    @Test("after a memory-only server restarted, the wait says the alert was lost: .lost, not a bare 404")
    func restartLosesTheAlert() async throws {
        let first = try LiveAlertd.start()
        let port = first.port
        let client = first.client(pollWait: 1)
        let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
        let waiter = Task { try await client.waitForResult(alert.id) }
        await first.waitForWaiters(1)
        await first.app.shutdown()
        let second = try LiveAlertd.start(port: port)
        let error = await #expect(throws: AlertClientError.self) { try await waiter.value }
        await second.app.shutdown()
        #expect(error?.kind == .lost)
        #expect(error?.description.contains("restarted as a new instance and lost") == true)
    }

    @Test("an unreachable server gives .unreachable once giveUpAfter passes")
    func giveUp() async throws {
        let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:1")!)
        let start = ContinuousClock.now
        let error = await #expect(throws: AlertClientError.self) {
            try await client.waitForResult("anything", giveUpAfter: .seconds(1))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.kind == .unreachable)
        #expect(elapsed >= .milliseconds(900) && elapsed < TestTime.bound(.seconds(30)), "gave up: \(elapsed)")
    }

    @Test("many waiters on one client all get their answer")
    func manyWaiters() async throws {
        try await LiveAlertd.with { server in
            let client = server.client(pollWait: 30)
            var ids: [String] = []
            for number in 0..<40 {
                ids.append(try await client.create(AlertInput(title: "#\(number)", buttons: ["No", "Yes"])).id)
            }
            try await withThrowingTaskGroup(of: RemoteResult.self) { group in
                for id in ids {
                    group.addTask { try await client.waitForResult(id) }
                }
                await server.waitForWaiters(ids.count)
                let responder = server.client()
                for id in ids {
                    _ = try await responder.answer(id, button: "Yes")
                }
                var count = 0
                for try await result in group {
                    #expect(result.buttonTitle == "Yes")
                    count += 1
                }
                #expect(count == ids.count)
            }
        }
    }
}
