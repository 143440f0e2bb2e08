import AlertCore
import Foundation
import MicroHTTP

/// The parameters of `GET /v1/alerts`.
struct ListRequest: Sendable {
    var query: ListQuery
    var index: UInt64?
    var wait: Duration
}

extension APIHandler {
    /// Creates an alert; a retry with the same `Idempotency-Key` and body answers 200 with the
    /// same alert and `Idempotent-Replayed: true`.
    func create(_ draft: AlertDraft, idempotencyKey: String?) async throws(Problem) -> HTTPResponse {
        let created: (alert: Alert, replayed: Bool)
        do {
            created = try await store.create(draft, idempotencyKey: idempotencyKey)
        } catch {
            throw Problem(error)
        }
        var response = HTTPResponse.json(created.replayed ? 200 : 201, alert: created.alert)
        response.headers.add("Location", "/v1/alerts/\(created.alert.id.rawValue)")
        if created.replayed { response.headers.add("Idempotent-Replayed", "true") }
        return response
    }

    func list(_ request: ListRequest) async throws(Problem) -> HTTPResponse {
        if let index = request.index, request.wait > .zero {
            do {
                _ = try await store.waitForChange(after: index, timeout: request.wait)
            } catch {
                throw Problem(error)
            }
        }
        let page = await store.list(request.query)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("index"); writer.write(Int64(clamping: page.index))
        writer.key("alerts")
        writer.beginArray()
        for alert in page.alerts { writer.write(alert, redactingSecrets: true) }
        writer.endArray()
        writer.endObject()
        var response = HTTPResponse.json(200, writer.bytes)
        response.headers.add("X-Alertd-Index", String(page.index))
        return response
    }

    func alert(_ id: AlertID, wait: Duration) async throws(Problem) -> HTTPResponse {
        let alert = try await resolved(id, wait: wait)
        return .json(200, alert: alert)
    }

    func response(_ id: AlertID, wait: Duration) async throws(Problem) -> HTTPResponse {
        let alert = try await resolved(id, wait: wait)
        guard let result = alert.result else { return HTTPResponse(status: 204) }
        return .json(200, result: result)
    }

    func answer(_ id: AlertID, _ answer: AnswerDraft) async throws(Problem) -> HTTPResponse {
        do {
            let result = try await store.answer(id, with: answer)
            if let alert = try? await store.alert(id) {
                metrics.answered(after: result.resolvedAt.timeIntervalSince(alert.createdAt))
            }
            return .json(200, result: result)
        } catch {
            throw Problem(error)
        }
    }

    func dismiss(_ id: AlertID) async throws(Problem) -> HTTPResponse {
        do {
            return .json(200, result: try await store.dismiss(id))
        } catch {
            throw Problem(error)
        }
    }

    /// The alert once resolved, or as it is when `wait` passes.
    private func resolved(_ id: AlertID, wait: Duration) async throws(Problem) -> Alert {
        do {
            if wait > .zero { return try await store.waitForResolution(of: id, timeout: wait) }
            return try await store.alert(id)
        } catch {
            throw Problem(error)
        }
    }
}

extension HTTPResponse {
    /// An `application/json` response.
    static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    static func json(_ status: Int, alert: Alert) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: false)
        return .json(status, writer.bytes)
    }

    static func json(_ status: Int, result: AlertResult) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(result, fields: nil)
        return .json(status, writer.bytes)
    }
}
