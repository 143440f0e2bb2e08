/// What a handler ties to a request's lifetime: its end, and headers for whatever response it gets.
///
/// Call these from `HTTPHandler.handle` or `continuation` (the transport's thread, while it has the request);
/// on a request answered in this process (`HTTPHandler.respond(to:)`) they apply to it there, and on any other
/// request not built by the server they do nothing.
extension HTTPRequest {
    /// Runs `observer` once when the request ends: its response sent, or its connection closed first. Use it for
    /// logs and metrics, and to release what the request held (a slot, a reservation) on every path. It runs on a
    /// transport thread: keep it short.
    /// - Parameter observer: gets the status, body bytes and duration.
    public func onFinish(_ observer: @escaping @Sendable (HTTPCompletion) -> Void) {
        context?.addFinishObserver(observer)
        local?.addFinishObserver(observer)
    }

    /// Adds a header field to the response this request gets, whoever produces it: the handler, deferred work, a
    /// responder, a stream's head, or the transport's own answer (at shutdown, to a body too large).
    public func addResponseHeader(_ name: String, _ value: String) {
        context?.responseHeaders.add(name, value)
        local?.addResponseHeader(name, value)
    }
}
