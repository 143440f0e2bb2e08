/// How one request ended, as its `HTTPRequest.onFinish` observers see it: from libmicrohttpd's "completed"
/// callback, once the response was sent (or the connection closed before it was).
public struct HTTPCompletion: Sendable {
    /// The status of the response queued for the request; 0 when none was (the connection closed first).
    public var status: Int
    /// Body bytes handed to libmicrohttpd: the whole body, or as much of a stream as was sent.
    public var bodyBytes: Int
    /// From the request's head being complete to the end.
    public var duration: Duration
    /// Whether the whole response went out; false when the client left, the connection failed or the server
    /// stopped first (a HEAD to a stream too, which is answered by closing).
    public var completed: Bool

    /// Creates a completion; the server builds these, tests may too.
    public init(status: Int, bodyBytes: Int, duration: Duration, completed: Bool) {
        self.status = status
        self.bodyBytes = bodyBytes
        self.duration = duration
        self.completed = completed
    }
}
