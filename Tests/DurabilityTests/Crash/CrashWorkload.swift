import Foundation
import HTTPTestSupport
import JSON
import Locking

/// The crash test's clients: producers that create alerts (some with an `Idempotency-Key`, some with a `timeout` so
/// that expiries happen), responders that answer and dismiss them (racing each other on the newest), and waiters
/// that long-poll for Results. Each records in the ledger what alertd acknowledged: a 2xx (or a 409 naming the
/// winner) received whole. A request cut off by a kill acknowledged nothing; a create with a key is retried until
/// it is acknowledged, as a producer would.
final class CrashWorkload: Sendable {
    private let server: AlertdProcess
    private let ledger: CrashLedger
    private let stopped = Lock(false)

    init(server: AlertdProcess, ledger: CrashLedger) {
        self.server = server
        self.ledger = ledger
    }

    /// Runs `producers` producers, `responders` responders and `waiters` waiters until `stop()`.
    func run(producers: Int, responders: Int, waiters: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for number in 1...producers { group.addTask { await self.produce(number) } }
            for number in 1...responders { group.addTask { await self.respond(number) } }
            for number in 1...waiters { group.addTask { await self.wait(number) } }
        }
    }

    /// Makes every client stop after its current request.
    func stop() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Which process a response came from, for messages ("life 3": the third start).
    private var life: String { "life \(server.starts)" }

    /// One request to the current process; nil unless a whole response came back. A request alertd may have
    /// received counts as `lost`; one it refused (it is away) waits a little, as a client's back-off.
    private func exchange(
        _ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = [], lost: String
    ) async -> WireResponse? {
        do {
            let response = try await server.send(method, target, body: body, headers: headers, timeout: 10)
            if response.isWhole { return response }
        } catch let error as RawHTTPError where error.description.hasPrefix("connect to port") {
            try? await Task.sleep(for: .milliseconds(20))
            return nil
        } catch {}
        ledger.count(lost)
        return nil
    }

    // MARK: producers

    private func produce(_ producer: Int) async {
        var serial = 0
        while !isStopped {
            serial += 1
            let (body, hasField) = Self.alertBody("p\(producer)-\(serial)")
            let key = Int.random(in: 0..<10) < 4 ? "crash-\(UUID().uuidString)" : nil
            let headers = key.map { [("Idempotency-Key", $0)] } ?? []
            let sentTo = life
            var response = await exchange("POST", "/v1/alerts", body: body, headers: headers, lost: "creates cut off")
            var retried = 0
            // Unacknowledged with a key: retry the same request until alertd answers, as a producer would.
            while key != nil, response == nil, !isStopped {
                retried += 1
                response = await exchange("POST", "/v1/alerts", body: body, headers: headers, lost: "creates cut off")
            }
            guard let response else { continue }
            let replayed = response.headers["idempotent-replayed"] == "true"
            guard response.status == 201 || (retried > 0 && response.status == 200 && replayed),
                  let id = response.json["id"]?.stringValue else {
                ledger.fail("producer \(producer): POST /v1/alerts \(body) (key \(key ?? "none"), \(retried) retries) "
                    + "answered \(response)")
                continue
            }
            if retried > 0 { ledger.count(replayed ? "creates replayed after a lost response" : "creates retried") }
            ledger.created(.init(id: id, body: body, key: key, alert: response.json, hasField: hasField,
                                 source: "\(response.status) to producer \(producer) (sent to \(sentTo), "
                                    + "acknowledged by \(life))"))
            // Paced, not ordered: at most about 60 creates a second per producer, so an idle machine makes as much
            // data as a loaded one. Unpaced, an idle machine acknowledged 47,000 creates in 20 kills, and every
            // restart and check reads all of them back (the test ran past its time limit).
            try? await Task.sleep(for: Self.createPace)
        }
    }

    /// The pause after each acknowledged create.
    static let createPace = Duration.milliseconds(15)

    /// A create body: the same shape a person would answer, made distinct by `name`.
    private static func alertBody(_ name: String) -> (String, Bool) {
        let hasField = Bool.random()
        var body = #"{"title":"crash \#(name)","message":"\#(UUID().uuidString)","tag":\#(Int.random(in: 0...999)),"#
            + #""presenter":"\#(["ops", "dev", "sre"].randomElement()!)","buttons":["Cancel","OK"]"#
        if hasField { body += #","fields":[{"placeholder":"note"}]"# }
        if Int.random(in: 0..<10) < 3 { body += #","timeout":\#(Double(Int.random(in: 5...25)) / 10)"# }
        return (body + "}", hasField)
    }

    // MARK: responders

    private func respond(_ responder: Int) async {
        while !isStopped {
            guard let alert = ledger.openAlert() else {
                try? await Task.sleep(for: .milliseconds(5))  // nothing to answer yet
                continue
            }
            // Alerts with a timeout are left to expire, so expiries happen however fast the responders are.
            if alert.body.contains(#""timeout":"#) {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let answering = Int.random(in: 0..<10) < 6
            let request = answering
                ? ("POST", "/v1/alerts/\(alert.id)/response",
                   alert.hasField ? #"{"button":"OK","values":["r\#(responder)-\#(UUID().uuidString.prefix(8))"]}"#
                                  : #"{"button":"OK"}"#)
                : ("DELETE", "/v1/alerts/\(alert.id)", nil as String?)
            let what = "\(request.0) \(request.1) by responder \(responder) (sent to \(life))"
            guard let response = await exchange(request.0, request.1, body: request.2,
                                                lost: answering ? "answers cut off" : "dismissals cut off") else {
                continue
            }
            switch response.status {
            case 200:
                ledger.resolved(alert.id, response.json, source: "200 to \(what)")
            case 409 where response.json["result"] != nil:
                ledger.count("409s naming the winner")
                ledger.resolved(alert.id, response.json["result"]!, source: "409 to \(what)")
            default:
                ledger.fail("\(what): alert acknowledged by \(alert.source) answered \(response)")
                ledger.abandon(alert.id)
            }
        }
    }

    // MARK: waiters

    private func wait(_ waiter: Int) async {
        while !isStopped {
            guard let alert = ledger.openAlert() else {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let target = "/v1/alerts/\(alert.id)/response?wait=1"
            let what = "GET \(target) by waiter \(waiter) (sent to \(life))"
            guard let response = await exchange("GET", target, lost: "long-polls cut off") else { continue }
            switch response.status {
            case 200:
                ledger.count("long-polls woken")
                ledger.resolved(alert.id, response.json, source: "200 to \(what)")
            case 204:
                break
            default:
                ledger.fail("\(what): the alert acknowledged by \(alert.source) answered \(response)")
                ledger.abandon(alert.id)
            }
        }
    }
}
