import Foundation
import HTTPTestSupport
import Testing

/// Concurrent producers, responders, waiters and event-stream followers against alertd with a data dir, SIGKILLed at
/// random moments and started again on the same data dir and port. After each restart, everything alertd had
/// acknowledged is still there and unchanged (`CrashVerifier`).
///
/// `ALERTD_CRASH_KILLS` sets the number of kills (20 by default; `make crash N=500`).
@Suite("Crash: SIGKILL under load loses nothing acknowledged")
struct CrashTests {
    static let kills = max(1, Int(ProcessInfo.processInfo.environment["ALERTD_CRASH_KILLS"] ?? "") ?? 20)

    @Test("creates, answers, dismissals, expiries, events and idempotency keys survive SIGKILL",
          .timeLimit(.minutes(3 + CrashTests.kills / 10)))
    func killAndRestart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // Nothing dropped by retention or the event history during the run: every entry stays checkable.
        let server = DurableAlertd(dataDirectory: scratch.appending("data"), arguments: [
            "--access-log", "off", "--max-resolved", "10000000", "--event-history", "1000000",
        ])
        try await server.start()
        let ledger = CrashLedger()
        let started = ContinuousClock.now
        let followers = (1...2).map { number in
            EventFollower(name: "follower \(number)", from: 0, port: { server.port }, deliver: { event, connection in
                ledger.event(event.id, type: event.type, alert: event.alert,
                             source: "follower \(number) on its stream \(connection) (life \(server.starts))")
            }, trouble: { ledger.fail("life \(server.starts): \($0)") })
        }
        let workload = CrashWorkload(server: server, ledger: ledger)
        let load = Task { await workload.run(producers: 3, responders: 2, waiters: 1) }
        let verifier = CrashVerifier(server: server, ledger: ledger)

        var kills = 0
        do {
            for restart in 1...Self.kills {
                // The load reaches this process; then a random moment later, the kill.
                let acknowledged = ledger.creationCount
                try await eventually("a create acknowledged by life \(server.starts)", within: 20) {
                    ledger.creationCount > acknowledged
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...400)))
                try await server.kill()
                kills += 1
                let snapshot = ledger.snapshot()
                try await server.start()
                await verifier.check("after restart \(restart)", snapshot, everything: false)
                if !ledger.failures.isEmpty { break }
            }
        } catch {
            ledger.fail("after \(kills) kills: \(error); alertd's standard error ends with: \(server.standardErrorTail)")
        }
        workload.stop()
        await load.value

        // The followers catch up with the last process; then every entry is checked once more.
        if ledger.failures.isEmpty {
            let index = try await server.send("GET", "/v1/alerts?limit=1").json["index"]?.int64Value ?? 0
            do {
                try await eventually("the followers to read through event \(index)", within: 20) {
                    followers.allSatisfy { $0.lastID >= UInt64(index) }
                }
            } catch {
                ledger.fail("\(error): they read through \(followers.map(\.lastID))")
            }
        }
        for follower in followers { await follower.stop() }
        await verifier.check("at the end (\(kills) restarts)", ledger.snapshot(), everything: true)
        await server.stop()

        let counts = ledger.counts
        let seconds = (ContinuousClock.now - started).components.seconds
        print("""
            CrashTests: \(kills) kills in \(seconds) s; acknowledged: \(ledger.creationCount) creates \
            (\(counts["created with a key"] ?? 0) with an Idempotency-Key, \
            \(counts["creates replayed after a lost response"] ?? 0) replayed and \(counts["creates retried"] ?? 0) \
            created again after a lost response), \(counts["answered"] ?? 0) answers, \
            \(counts["dismissed"] ?? 0) dismissals, \(counts["expired"] ?? 0) expiries seen, \
            \(counts["409s naming the winner"] ?? 0) 409s naming the winner, \(counts["long-polls woken"] ?? 0) \
            long-polls woken, \(counts["events"] ?? 0) events; verified: \(counts["alert reads verified"] ?? 0) \
            alert reads, \(counts["events verified"] ?? 0) events read again, \
            \(counts["idempotent replays verified"] ?? 0) idempotent replays; lost in flight (unacknowledged): \
            \(counts["creates unacknowledged"] ?? 0) creates, \(counts["answers unacknowledged"] ?? 0) answers, \
            \(counts["dismissals unacknowledged"] ?? 0) dismissals; followers reconnected \
            \(followers.map { $0.connections - 1 }) times
            """)
        let failures = ledger.failures
        if !failures.isEmpty {
            Issue.record("""
                \(failures.count) failed checks; the first ones:
                \(failures.prefix(20).joined(separator: "\n"))
                """)
        }
        #expect(kills == Self.kills || !failures.isEmpty, "only \(kills) of \(Self.kills) kills happened")
        #expect((counts["expired"] ?? 0) > 0 && (counts["answered"] ?? 0) > 0 && (counts["dismissed"] ?? 0) > 0,
                "the load made no expiry, answer or dismissal: \(counts)")
    }
}
