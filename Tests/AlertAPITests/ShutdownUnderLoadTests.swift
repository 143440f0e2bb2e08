@testable import AlertAPI
import AlertCore
import AlertdTestSupport
import Foundation
import JSON
import Locking
import Testing

/// SIGTERM while producers create and wait, responders answer and keep-alive clients poll.
@Suite("Shutdown under load", .spawnsProcesses)
struct ShutdownUnderLoadTests {
    /// What the clients saw, gathered from their threads.
    struct Seen {
        /// Requests that ended other than with a whole response or a refused connection.
        var broken: [String] = []
        /// Answers that got 200, by alert id: the Result.
        var answers: [String: JSONValue] = [:]
        /// What each producer's long-poll got, by alert id: the Result (200) or null (503).
        var delivered: [String: JSONValue] = [:]
        /// Results read again with GET after a 503.
        var reread: [String: JSONValue] = [:]
        var shutdownAnswers = 0
        var keepAliveResponses = 0
        /// Messages of alerts created on keep-alive connections that got 201.
        var created: Set<String> = []
        /// Messages of creates whose keep-alive connection ended with no byte of a response.
        var unanswered: Set<String> = []
    }

    /// `Seen` behind a lock, shared by the client threads.
    final class Box: Sendable {
        let state = Lock(Seen())
        func withLock<T>(_ body: (inout Seen) -> T) -> T { state.withLock { body(&$0) } }
    }

    static func request(_ method: String, _ target: String, body: String? = nil, close: Bool = true) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if close { head += "Connection: close\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + (body ?? "")).utf8)
    }

    /// One request on a fresh connection: the response, or nil when the connection was refused (the server
    /// no longer listens) or closed before any byte of a response: a connection the draining server adopted
    /// from its accept queue whose request had not arrived when it stopped serving gets end-of-stream, and its
    /// request never runs (`keepAliveCreatesAtShutdown` checks that such a create stored nothing). Anything else
    /// is recorded as broken.
    static func once(_ bytes: [UInt8], port: Int, seen: Box, what: String) -> WireResponse? {
        let socket: WireSocket
        do throws(WireSocket.Failure) {
            socket = try WireSocket(port: port)
        } catch .refused {
            return nil
        } catch {
            seen.withLock { $0.broken.append("\(what): connect: \(error)") }
            return nil
        }
        do throws(WireSocket.Failure) {
            try socket.send(bytes)
            usleep(0)
            return try socket.readResponse()
        } catch .refused, .closed(bytes: 0) {
            return nil
        } catch {
            seen.withLock { $0.broken.append("\(what): \(error)") }
            return nil
        }
    }

    static func produce(port: Int, seen: Box) {
        while true {
            let body = #"{"message":"load","buttons":["Cancel","OK"],"timeout":30}"#
            guard let created = once(request("POST", "/v1/alerts", body: body), port: port, seen: seen, what: "create"),
                  created.status == 201, let id = created.json["id"]?.stringValue
            else { return }
            guard let waited = once(request("GET", "/v1/alerts/\(id)/response?wait=30"), port: port, seen: seen,
                                    what: "wait") else { return }
            switch waited.status {
            case 200:
                seen.withLock { $0.delivered[id] = waited.json }
            case 503:
                seen.withLock { seen in
                    seen.delivered[id] = JSONValue.null
                    seen.shutdownAnswers += 1
                    if waited.headers["retry-after"] != "1" || !waited.isProblem {
                        seen.broken.append("503 without Retry-After or problem: \(waited)")
                    }
                }
                let reread = request("GET", "/v1/alerts/\(id)/response")
                if let again = once(reread, port: port, seen: seen, what: "reread"), again.status == 200 {
                    seen.withLock { $0.reread[id] = again.json }
                }
                return
            default:
                seen.withLock { $0.broken.append("wait answered \(waited)") }
                return
            }
        }
    }

    static func respond(port: Int, seen: Box) {
        while true {
            guard let list = once(request("GET", "/v1/alerts?limit=20"), port: port, seen: seen, what: "list"),
                  list.status == 200 else { return }
            let alerts: [JSONValue] = list.json["alerts"]?.arrayValue ?? []
            let ids = alerts.compactMap { alert -> String? in alert["id"]?.stringValue }
            for id in ids {
                guard let answer = once(request("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#),
                                        port: port, seen: seen, what: "answer") else { return }
                if answer.status == 200 { seen.withLock { $0.answers[id] = answer.json } }
            }
            if ids.isEmpty { usleep(2_000) }
        }
    }

    /// Opens a connection when there is none or the server closed it; false once connecting is refused
    /// (the server stopped) or fails otherwise (recorded as broken).
    static func reconnect(_ socket: inout WireSocket?, port: Int, seen: Box) -> Bool {
        guard socket == nil || socket?.peerClosed == true else { return true }
        do throws(WireSocket.Failure) {
            socket = try WireSocket(port: port)
            return true
        } catch {
            if error != .refused { seen.withLock { $0.broken.append("keep-alive connect: \(error)") } }
            return false
        }
    }

    /// Polls on one keep-alive connection; reconnects when the server closed it. A close noticed before
    /// sending is clean; so is an end of stream with no byte of a response (the idle keep-alive race):
    /// the server then never ran the request (`keepAliveCreatesAtShutdown` checks that).
    static func keepAlive(port: Int, seen: Box) {
        var socket: WireSocket?
        while true {
            guard reconnect(&socket, port: port, seen: seen) else { return }
            do throws(WireSocket.Failure) {
                let response = try socket!.exchange(request("GET", "/healthz", close: false))
                seen.withLock { $0.keepAliveResponses += 1 }
                if response.headers["connection"]?.lowercased() == "close" { socket = nil }
            } catch .closed(bytes: 0) {
                socket = nil
            } catch {
                seen.withLock { $0.broken.append("keep-alive: \(error)") }
                return
            }
            usleep(3_000)
        }
    }

    /// Creates alerts on one keep-alive connection, reconnecting when the server closes it, until
    /// connecting is refused. Each create either got an answer or is recorded as unanswered: the
    /// connection ended (end of stream or reset) with no byte of a response.
    static func keepAliveCreates(port: Int, worker: Int, seen: Box) {
        var socket: WireSocket?
        for number in 1... {
            guard reconnect(&socket, port: port, seen: seen) else { return }
            let message = "keep-alive \(worker)-\(number)"
            let create = request("POST", "/v1/alerts", body: #"{"message":"\#(message)"}"#, close: false)
            do throws(WireSocket.Failure) {
                let response = try socket!.exchange(create)
                switch response.status {
                case 201: seen.withLock { _ = $0.created.insert(message) }
                case 503: break  // the server was stopping and did not create it
                default: seen.withLock { $0.broken.append("keep-alive create: \(response)") }
                }
                if response.headers["connection"]?.lowercased() == "close" { socket = nil }
            } catch .closed(bytes: 0), .reset {
                seen.withLock { _ = $0.unanswered.insert(message) }
                socket = nil
            } catch {
                seen.withLock { $0.broken.append("keep-alive create: \(error)") }
                return
            }
            usleep(500)
        }
    }

    @Test("Shutdown with keep-alive clients creating: each create got its whole answer or never ran")
    func keepAliveCreatesAtShutdown() async throws {
        let app = try TestAlertd.start()
        let port = app.port
        let seen = Box()
        async let workers: Void = withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    await WireSocket.onThread { Self.keepAliveCreates(port: port, worker: worker, seen: seen) }
                }
            }
        }
        // Shut down once the load runs (on a busy machine the threads may take a while to start).
        _ = await TestTime.until(every: .milliseconds(20)) { seen.withLock { $0.created.count >= 50 } }
        await app.shutdown()
        await workers
        // The store still reads after shutdown: what ran is there.
        let stored = Set(await app.store.list(ListQuery(state: .all, limit: 1_000_000)).alerts.map(\.message))
        let result = seen.withLock { $0 }
        #expect(result.broken.isEmpty, "\(result.broken.prefix(10))")
        #expect(!result.created.isEmpty, "the load ran")
        #expect(result.created.isSubset(of: stored))
        let ranUnanswered = result.unanswered.intersection(stored)
        #expect(ranUnanswered.isEmpty, "closed without an answer, yet created: \(ranUnanswered.prefix(5))")
    }

    @Test("SIGTERM under load: no reset, every answered Result reaches its producer or stays readable, exit 0")
    func sigtermUnderLoad() async throws {
        let alertd = try await AlertdProcess.start(arguments: ["--access-log", "off"])
        let port = alertd.port
        let seen = Box()
        async let workers: Void = withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { await WireSocket.onThread { Self.produce(port: port, seen: seen) } } }
            for _ in 0..<3 { group.addTask { await WireSocket.onThread { Self.respond(port: port, seen: seen) } } }
            for _ in 0..<4 { group.addTask { await WireSocket.onThread { Self.keepAlive(port: port, seen: seen) } } }
        }
        // Signal once the load runs: answers made and keep-alive requests served (threads may start late).
        _ = await TestTime.until(every: .milliseconds(20)) {
            seen.withLock { !$0.answers.isEmpty && $0.keepAliveResponses > 0 }
        }
        alertd.send(SIGTERM)
        await workers
        #expect(try await alertd.exitStatus(timeout: 15) == 0)

        let result = seen.withLock { $0 }
        #expect(result.broken.isEmpty, "\(result.broken.prefix(10))")
        #expect(!result.answers.isEmpty && result.keepAliveResponses > 0, "the load ran")
        for (id, answer) in result.answers {
            switch result.delivered[id] {
            case .null?:
                // Woken by the shutdown (503) before or as the answer came: re-read while the server still listened.
                if let again = result.reread[id] { #expect(again == answer, "alert \(id)") }
            case let delivered?:
                #expect(delivered == answer, "alert \(id): the producer got the Result its responder got")
            case nil:
                break  // its producer's wait was refused: the server had stopped listening
            }
        }
    }
}
