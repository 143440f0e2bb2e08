import Foundation
import HTTPTestSupport

/// One round of the crash test: a fresh data dir, alertd on it under load from every kind of client, `kills`
/// SIGKILLs at random moments each followed by a restart and the checks, then the last check of everything.
///
/// A long run (`make crash`) is several rounds: a restart reads the whole journal back, so one data dir grown by
/// hundreds of kills' load would make each restart, and the run, longer and longer.
struct CrashRound {
    /// What a round did and found.
    struct Outcome {
        var kills = 0
        var creations = 0
        var counts: [String: Int] = [:]
        var failures: [String] = []
        var reconnects: [Int] = []
        var restarts = Timings()
        var checks = Timings()
        var seconds: Int64 = 0
    }

    /// Runs a round.
    /// - Parameters:
    ///   - number: the round's number, for messages.
    ///   - kills: how many times alertd is killed and restarted.
    static func run(number: Int, kills: Int) async throws -> Outcome {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // Nothing dropped by retention or the event history during the round: every entry stays checkable. With
        // tokens: votes count only from distinct responders, and rules are for admins.
        let server = AlertdProcess(dataDirectory: scratch.appending("data"), arguments: [
            "--access-log", "off", "--max-resolved", "10000000", "--event-history", "1000000",
        ], environment: CrashWorkload.Tokens.environment)
        try await server.start()
        let ledger = CrashLedger()
        let started = ContinuousClock.now
        let life: @Sendable () -> String = { "round \(number), life \(server.starts)" }
        let followers = (1...2).map { follower in
            EventFollower(name: "follower \(follower)", from: 0, token: CrashWorkload.Tokens.watcher,
                          port: { server.port }, deliver: { event, stream in
                ledger.event(event.id, type: event.type, alert: event.alert,
                             source: "follower \(follower) on its stream \(stream) (\(life()))")
            }, trouble: { ledger.fail("\(life()): \($0)") })
        }
        let workload = CrashWorkload(server: server, ledger: ledger)
        let load = Task { await workload.run(producers: 3, responders: 2, voters: 2, waiters: 1) }
        let verifier = CrashVerifier(server: server, ledger: ledger)

        var outcome = Outcome()
        do {
            for restart in 1...kills {
                // The load reaches this process; then a random moment later, the kill.
                let acknowledged = ledger.creationCount
                try await eventually("a create acknowledged by \(life())", within: 20) {
                    ledger.creationCount > acknowledged
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...400)))
                try await server.kill()
                outcome.kills += 1
                let snapshot = ledger.snapshot()
                try await outcome.restarts.time { try await server.start() }
                await outcome.checks.time {
                    await verifier.check("round \(number), after restart \(restart)", snapshot, everything: false)
                }
                if !ledger.failures.isEmpty { break }
            }
        } catch {
            ledger.fail("round \(number), after \(outcome.kills) kills: \(error); alertd's standard error ends with: "
                + server.standardErrorTail)
        }
        workload.stop()
        await load.value

        // The followers catch up with the last process; then every entry is checked once more.
        if ledger.failures.isEmpty {
            let index = try await server.send("GET", "/v1/alerts?limit=1", headers: [
                CrashWorkload.Tokens.bearer(CrashWorkload.Tokens.watcher),
            ]).json["index"]?.int64Value ?? 0
            do {
                try await eventually("the followers to read through event \(index)", within: 20) {
                    followers.allSatisfy { $0.lastID >= UInt64(index) }
                }
            } catch {
                ledger.fail("round \(number): \(error): they read through \(followers.map(\.lastID))")
            }
        }
        for follower in followers { await follower.stop() }
        await verifier.check("round \(number), at the end (\(outcome.kills) restarts)", ledger.snapshot(),
                             everything: true)
        await server.stop()

        outcome.creations = ledger.creationCount
        outcome.counts = ledger.counts
        outcome.failures = ledger.failures
        outcome.reconnects = followers.map { $0.connections - 1 }
        outcome.seconds = (ContinuousClock.now - started).components.seconds
        return outcome
    }
}

extension CrashRound.Outcome: CustomStringConvertible {
    var description: String {
        """
        \(kills) kills in \(seconds) s; acknowledged: \(creations) creates \
        (\(counts["created with a key"] ?? 0) with an Idempotency-Key, \
        \(counts["creates replayed after a lost response"] ?? 0) replayed and \(counts["creates retried"] ?? 0) \
        created again after a lost response), \(counts["answered"] ?? 0) answers, \
        \(counts["dismissed"] ?? 0) dismissals, \(counts["expired"] ?? 0) expiries seen, \
        \(counts["409s naming the winner"] ?? 0) 409s naming the winner, \(counts["long-polls woken"] ?? 0) \
        long-polls woken, \(counts["events"] ?? 0) events, \(counts["votes acknowledged"] ?? 0) votes \
        (\(counts["quorums reached"] ?? 0) quorums reached, \(counts["vetoes"] ?? 0) vetoes, \
        \(counts["409s already voted"] ?? 0) 409s already voted), \(counts["rules added"] ?? 0) rules added and \
        \(counts["rules deleted"] ?? 0) deleted, \(counts["rule answers"] ?? 0) alerts answered by a rule; \
        verified: \(counts["alert reads verified"] ?? 0) alert reads, \(counts["votes verified"] ?? 0) votes, \
        \(counts["rules verified"] ?? 0) rules, \(counts["events verified"] ?? 0) events read again, \
        \(counts["idempotent replays verified"] ?? 0) idempotent replays; cut off by a kill (unacknowledged): \
        \(counts["creates cut off"] ?? 0) creates, \(counts["answers cut off"] ?? 0) answers, \
        \(counts["votes cut off"] ?? 0) votes, \(counts["dismissals cut off"] ?? 0) dismissals, \
        \(counts["long-polls cut off"] ?? 0) long-polls, \(counts["rule adds cut off"] ?? 0) rule adds, \
        \(counts["rule deletes cut off"] ?? 0) rule deletes; \
        followers reconnected \(reconnects) times; restarts (exec to /healthz) \(restarts), checks \(checks)
        """
    }
}

/// How long something took each time: for the summary.
struct Timings: CustomStringConvertible {
    private var seconds: [Double] = []

    mutating func time<T>(_ work: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = (ContinuousClock.now - start).components
            seconds.append(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
        return try await work()
    }

    var description: String {
        guard !seconds.isEmpty else { return "none" }
        let sorted = seconds.sorted()
        return String(format: "%.1f s in all, median %.2f s, first %.2f s, last %.2f s, longest %.2f s",
                      seconds.reduce(0, +), sorted[sorted.count / 2], seconds[0], seconds[seconds.count - 1],
                      sorted[sorted.count - 1])
    }
}
