import MicroHTTP

extension APIHandler {
    /// `reply`, holding one of the client's wait slots until the request ends when `waits` (the request
    /// suspends to wait: a long-poll with `wait` > 0, an event stream). The transport reports the end of
    /// every request once (`HTTPRequest.onFinish`), so the slot is given back however the wait ends:
    /// answered, timed out, the client hung up, the server stopping. Requests answered at once never get here.
    /// - Parameters:
    ///   - reply: the deferred reply that waits.
    ///   - waits: whether it waits; decided from the parsed request, HEAD included.
    ///   - request: the request, for the client's address.
    ///   - caller: who sent it; with a token, its waits count under the token's name.
    /// - Throws: `Problem` 429 `too-many-waits` when the client holds `--client-wait-limit` waits.
    func waiting(_ reply: HTTPReply, if waits: Bool, for request: HTTPRequest, as caller: Caller) throws(Problem)
        -> HTTPReply
    {
        guard waits, self.waits.limit > 0,
              let client = ClientWaits.key(caller: caller, address: request.clientAddress)
        else { return reply }
        let waits = self.waits
        guard waits.acquire(client) else { throw .tooManyWaits(limit: waits.limit) }
        request.onFinish { _ in waits.release(client) }
        return reply
    }
}

extension ListRequest {
    /// Whether `APIHandler.list` waits for the store to pass `index`.
    var waits: Bool { index != nil && wait > .zero }
}

extension EventsRequest {
    /// Whether the answer waits: a long-poll with `wait` > 0, or a stream, except on HEAD, which
    /// gets the stream's head at once.
    func waits(head: Bool) -> Bool {
        guard let wait else { return !head }
        return wait > .zero
    }
}

extension Problem {
    /// 429: the client holds as many waiting requests as it may.
    static func tooManyWaits(limit: Int) -> Problem {
        var problem = Problem.alertd(
            429, "too-many-waits", "Too many waiting requests",
            detail: "this client already holds \(limit) waiting requests (long-polls and event streams); "
                + "retry when one of them ends")
        problem.headers.add("Retry-After", "1")
        return problem
    }
}
