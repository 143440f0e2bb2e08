import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AlertClient {
    /// Creates an alert (`POST /v1/alerts`).
    /// - Parameters:
    ///   - input: The alert; the server normalizes its buttons.
    ///   - idempotencyKey: Sent as `Idempotency-Key`: a retry with the same key and input gets the alert the first
    ///     request created (`200`, also after a restart of an alertd with a data dir) instead of a second one.
    /// - Returns: The pending alert, after normalization.
    /// - Throws: `.server` 422 naming each bad member in `problem.errors`, 429 when too many are pending.
    public func create(_ input: AlertInput, idempotencyKey: String? = nil) async throws(AlertClientError)
        -> RemoteAlert
    {
        let body = try encode(input)
        let response = try await exchange("POST", "/v1/alerts", body: body, headers: idempotencyKey.map {
            ["Idempotency-Key": $0]
        } ?? [:])
        // 200: a retry with the same key, answered with the alert the first request created.
        return try decode(RemoteAlert.self, response, expecting: [201, 200])
    }

    /// Reads an alert (`GET /v1/alerts/{id}`), secure values included.
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - wait: Seconds (0 to 300) to hold the request while the alert is pending.
    /// - Returns: The alert as it is when the server answers.
    /// - Throws: `.server` 404 for an unknown id.
    public func alert(_ id: String, wait: Int = 0) async throws(AlertClientError) -> RemoteAlert {
        let response = try await exchange("GET", "/v1/alerts/\(segment(id))", query: waitQuery(wait), wait: wait)
        return try decode(RemoteAlert.self, response)
    }

    /// Polls or long-polls the Result (`GET /v1/alerts/{id}/response`).
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - wait: Seconds (0 to 300) to hold the request while the alert is pending.
    /// - Returns: The Result, or `nil` while the alert is pending (`204`).
    /// - Throws: `.lost` when the alert is gone because the server restarted without keeping it (its instance
    ///   identity changed since this client first talked to it); `.server` 404 for an id it never had.
    public func response(_ id: String, wait: Int = 0) async throws(AlertClientError) -> RemoteResult? {
        let seen = firstInstance.withLock { $0 }
        let response = try await exchange(
            "GET", "/v1/alerts/\(segment(id))/response", query: waitQuery(wait), wait: wait)
        if response.status == 404, let seen, let instance = response.instance, instance != seen { throw .lost(id) }
        if response.status == 204 { return nil }
        return try decode(RemoteResult.self, response)
    }

    /// Answers an alert by button index (`POST /v1/alerts/{id}/response`).
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - buttonIndex: Index into the alert's normalized `buttons`.
    ///   - values: One string per field; `nil` keeps each field's `text`.
    /// - Returns: The Result of this answer.
    /// - Throws: `.server` 409 with `problem.result` (the Result that won) if the alert had resolved, 404, 422.
    public func answer(_ id: String, buttonIndex: Int, values: [String]? = nil) async throws(AlertClientError)
        -> RemoteResult
    {
        try await postAnswer(id, AnswerBody(buttonIndex: buttonIndex, button: nil, values: values))
    }

    /// Answers an alert by button title (the first button with exactly this title).
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - title: The button's title.
    ///   - values: One string per field; `nil` keeps each field's `text`.
    /// - Returns: The Result of this answer.
    /// - Throws: As `answer(_:buttonIndex:values:)`; 422 for an unknown title.
    public func answer(_ id: String, button title: String, values: [String]? = nil) async throws(AlertClientError)
        -> RemoteResult
    {
        try await postAnswer(id, AnswerBody(buttonIndex: nil, button: title, values: values))
    }

    /// Withdraws an alert (`DELETE /v1/alerts/{id}`): it resolves as its cancel button, resolution `dismissed`.
    /// - Parameter id: The alert's id.
    /// - Returns: The Result of the dismissal.
    /// - Throws: `.server` 409 with `problem.result` if it had already resolved, 404 for an unknown id.
    public func dismiss(_ id: String) async throws(AlertClientError) -> RemoteResult {
        let response = try await exchange("DELETE", "/v1/alerts/\(segment(id))")
        return try decode(RemoteResult.self, response)
    }

    /// Lists one page of alerts oldest first (`GET /v1/alerts`); with `index` and `wait`, a blocking query.
    ///
    /// A page ends at `limit` or before the alert that would take it past 1 MiB of JSON (about 50 of the largest
    /// alerts), whichever comes first; `next` then says that more follow. `listAll` follows the pages.
    /// - Parameters:
    ///   - state: `pending`, `resolved` or `all`.
    ///   - presenter: Only alerts addressed to this presenter.
    ///   - limit: At most this many (1 to 1000; the server's default is 100).
    ///   - after: A page's `next`: only the alerts after that page (with the same `state` and `presenter`).
    ///   - index: A change index from an earlier list; with `wait`, hold until the store has changed past it.
    ///   - wait: Seconds (0 to 300) to hold the request.
    /// - Returns: The alerts (secure values `nil`), the store's change index, and `next` when more follow.
    public func list(
        state: String = "pending", presenter: String? = nil, limit: Int? = nil, after: UInt64? = nil,
        index: UInt64? = nil, wait: Int = 0
    ) async throws(AlertClientError) -> RemoteAlertList {
        try await page(state: state, presenter: presenter, limit: limit, after: after, index: index, wait: wait).list
    }

    /// Lists alerts oldest first, following the pages (`next`, `after`) until the list is complete or holds
    /// `limit` alerts.
    ///
    /// Only the first page is the blocking query (`index`, `wait`), and the list carries the first page's
    /// `index`: an alert that resolves while later pages are read may still be listed, but a blocking query with
    /// that index wakes at once for it, so a loop of `listAll(index:wait:)` misses nothing. No alert is listed
    /// twice (each page starts after the last one's newest alert). When the server's instance changes between
    /// pages (a restart without a data dir), the list starts again from the first page, without `index`.
    /// - Parameters:
    ///   - state: `pending`, `resolved` or `all`.
    ///   - presenter: Only alerts addressed to this presenter.
    ///   - limit: At most this many alerts in all, over every page (at least 1; each page asks for at most 1000).
    ///   - index: A change index from an earlier list; with `wait`, hold the first page until the store changed.
    ///   - wait: Seconds (0 to 300) to hold the first page.
    /// - Returns: The alerts of every page, the first page's index, and `next` only when `limit` ended the list
    ///   with more to come.
    /// - Throws: As `list`, from any page; `.invalidResponse` when a page makes no progress.
    public func listAll(
        state: String = "pending", presenter: String? = nil, limit: Int = 100, index: UInt64? = nil, wait: Int = 0
    ) async throws(AlertClientError) -> RemoteAlertList {
        var (index, wait) = (index, wait)
        // A restart between pages is rare; instances that keep changing (a balancer over separate memory-only
        // alertds) are not one list.
        restart: for _ in 0..<3 {
            let first = try await page(
                state: state, presenter: presenter, limit: min(limit, Self.pageLimit), index: index, wait: wait)
            var list = first.list
            while let after = list.next, list.alerts.count < limit {
                let next = try await page(state: state, presenter: presenter,
                                          limit: min(limit - list.alerts.count, Self.pageLimit), after: after)
                if next.instance != first.instance {
                    // Another instance's sequence numbers: `after` means nothing there.
                    (index, wait) = (nil, 0)
                    continue restart
                }
                guard !next.list.alerts.isEmpty, next.list.next != after else {
                    throw .invalidResponse("a page after \(after) brought no alerts")
                }
                list.alerts += next.list.alerts
                list.next = next.list.next
            }
            return list
        }
        throw .invalidResponse("the server's instance (X-Alertd-Instance) changed at every page")
    }

    /// The most alerts one page may ask for (`limit`).
    static let pageLimit = 1000

    /// Checks that the server is up (`GET /healthz`).
    /// - Throws: `.unreachable` when it cannot be reached, `.server` for an error status.
    public func health() async throws(AlertClientError) {
        let response = try await exchange("GET", "/healthz")
        try check(response, expecting: [200])
    }

    /// Who this client's token is (`GET /v1/me`): its name, role and groups, to tell with
    /// `RemoteAlert.mayBeAnswered(by:)` which alerts it may answer.
    /// - Throws: `.server` 404 from a server older than answer policies.
    public func me() async throws(AlertClientError) -> Identity {
        let response = try await exchange("GET", "/v1/me")
        return try decode(Identity.self, response)
    }

    /// Answers many alerts with the button titled `title` (`POST /v1/answers`), each on its own.
    /// - Returns: Each alert's outcome, in the order of `ids`.
    /// - Throws: `.server` 422 for a bad batch (no ids, more than 100, one twice); 404 from a server without batches.
    public func answer(_ ids: [String], button title: String) async throws(AlertClientError) -> [AnswerOutcome] {
        let data = try encode(BatchAnswerBody(ids: ids, button: title))
        let response = try await exchange("POST", "/v1/answers", body: data)
        return try decode(AnswerOutcomes.self, response).outcomes
    }

    // MARK: helpers

    /// One page and the instance that answered it (`X-Alertd-Instance`).
    private func page(
        state: String, presenter: String?, limit: Int?, after: UInt64? = nil, index: UInt64? = nil, wait: Int = 0
    ) async throws(AlertClientError) -> (list: RemoteAlertList, instance: String?) {
        var query = [URLQueryItem(name: "state", value: state)]
        if let presenter { query.append(URLQueryItem(name: "presenter", value: presenter)) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let after { query.append(URLQueryItem(name: "after", value: String(after))) }
        if let index { query.append(URLQueryItem(name: "index", value: String(index))) }
        query += waitQuery(wait)
        let response = try await exchange("GET", "/v1/alerts", query: query, wait: index == nil ? 0 : wait)
        return (try decode(RemoteAlertList.self, response), response.instance)
    }

    private func waitQuery(_ wait: Int) -> [URLQueryItem] {
        wait > 0 ? [URLQueryItem(name: "wait", value: String(wait))] : []
    }

    private func postAnswer(_ id: String, _ body: AnswerBody) async throws(AlertClientError) -> RemoteResult {
        let data = try encode(body)
        let response = try await exchange("POST", "/v1/alerts/\(segment(id))/response", body: data)
        // 202: a vote on an alert with a quorum, recorded; it resolves once enough responders agree.
        if response.status == 202 {
            throw .invalidResponse("the answer was recorded as a vote: the alert waits for more responders (quorum)")
        }
        return try decode(RemoteResult.self, response)
    }
}

/// The body of `POST /v1/answers`.
private struct BatchAnswerBody: Encodable {
    let ids: [String]
    let button: String
}

/// The answer of `POST /v1/answers`.
private struct AnswerOutcomes: Decodable {
    let outcomes: [AnswerOutcome]
}

/// One alert's outcome in a batch answer (`BatchAnswerOutcome` in `openapi.yaml`).
public struct AnswerOutcome: Codable, Sendable, Equatable {
    /// The alert's id, as given.
    public var id: String
    /// `answered`, `already-resolved`, `not-allowed`, `not-found`, `invalid` or `failed`.
    public var outcome: String
    /// This answer's Result (`answered`) or the one that won (`already-resolved`).
    public var result: RemoteResult?
    /// Why, for every outcome but `answered`.
    public var detail: String?
}

/// The body of `POST /v1/alerts/{id}/response`; `nil` members are left out.
private struct AnswerBody: Encodable {
    let buttonIndex: Int?
    let button: String?
    let values: [String]?
}
