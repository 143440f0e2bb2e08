import Foundation
import HTTPTestSupport
import Testing

/// Concurrent producers, responders, voters, waiters, an admin of rules and event-stream followers against alertd
/// with a data dir and tokens, SIGKILLed at random moments and started again on the same data dir and port. After
/// each restart, everything alertd had acknowledged is still there and unchanged (`CrashVerifier`): alerts, Results,
/// votes, rules and their deletes, the rules' answers, events and idempotency keys.
///
/// `ALERTD_CRASH_KILLS` sets the number of kills (20 by default; `make crash N=500`), in rounds of at most 50 kills,
/// each on a fresh data dir (`CrashRound`).
@Suite("Crash: SIGKILL under load loses nothing acknowledged")
struct CrashTests {
    static let kills = max(1, Int(ProcessInfo.processInfo.environment["ALERTD_CRASH_KILLS"] ?? "") ?? 20)
    static let killsPerRound = 50
    /// 3 minutes and one more for every 15 kills, stretched like every other bound under the sanitizers (TSan's 20
    /// kills took 242 s).
    static let minutes = Int((Double(3 + kills / 15) * TestTime.scale).rounded(.up))

    @Test("creates, answers, votes, dismissals, expiries, rules, events and idempotency keys survive SIGKILL",
          .timeLimit(.minutes(CrashTests.minutes)))
    func killAndRestart() async throws {
        var left = Self.kills
        var round = 0
        var totals = (kills: 0, creations: 0, seconds: Int64(0))
        while left > 0 {
            round += 1
            let kills = min(left, Self.killsPerRound)
            left -= kills
            let outcome = try await CrashRound.run(number: round, kills: kills)
            print("CrashTests round \(round): \(outcome)")
            totals = (totals.kills + outcome.kills, totals.creations + outcome.creations,
                      totals.seconds + outcome.seconds)
            let failures = outcome.failures
            if !failures.isEmpty {
                Issue.record("""
                    round \(round): \(failures.count) failed checks; the first ones:
                    \(failures.prefix(20).joined(separator: "\n"))
                    """)
                return
            }
            #expect(outcome.kills == kills, "round \(round): only \(outcome.kills) of \(kills) kills happened")
            let counts = outcome.counts
            #expect((counts["expired"] ?? 0) > 0 && (counts["answered"] ?? 0) > 0 && (counts["dismissed"] ?? 0) > 0,
                    "round \(round): the load made no expiry, answer or dismissal: \(counts)")
            #expect((counts["quorums reached"] ?? 0) > 0 && (counts["rules deleted"] ?? 0) > 0
                        && (counts["rule answers"] ?? 0) > 0,
                    "round \(round): the load reached no quorum, deleted no rule or had no alert answered by one: \(counts)")
        }
        if round > 1 {
            print("CrashTests: \(totals.kills) kills in \(round) rounds, \(totals.seconds) s, "
                + "\(totals.creations) creates acknowledged")
        }
    }
}
