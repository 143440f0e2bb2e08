/// How an `HTTPServer` listens and what it allows per connection.
public struct HTTPServerConfiguration: Sendable {
    /// IP address or host name to bind; `0.0.0.0` or `::` for every interface.
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: Int = 8080
    /// Worker threads in libmicrohttpd's pool, each running its own epoll loop.
    public var threads: Int = 2
    /// Most simultaneous connections. libmicrohttpd's own default (1,020) silently stalls
    /// clients beyond it; `HTTPServer` also lowers this to fit `RLIMIT_NOFILE`.
    public var connectionLimit: Int = 16_384
    /// Descriptors the application keeps for itself (its outbound connections): the connection limit leaves them free
    /// when it is fitted to `RLIMIT_NOFILE`.
    public var reservedDescriptors: Int = 0
    /// Most simultaneous connections from one client address (0: no limit). Connections beyond
    /// it are closed as soon as they are accepted, so one client cannot take every slot.
    public var perClientConnectionLimit: Int = 1024
    /// Reverse proxies in front of the server: a request from one of them has the client its
    /// `X-Forwarded-For` (or `X-Real-IP`) names as `HTTPRequest.clientAddress`, and their own
    /// connections do not count against `perClientConnectionLimit`. Empty: every peer is a client,
    /// and forwarding headers are ignored.
    public var trustedProxies: [IPNetwork] = []
    /// Memory libmicrohttpd may use per connection for headers and buffers, in bytes. It zeroes all
    /// of it after every request on a kept-alive connection, so this is what each costs resident.
    public var connectionMemory: Int = 8 * 1024
    /// Seconds an idle connection is kept open (suspended connections are not idle).
    public var idleTimeout: Int = 30
    /// Seconds a request head may take once its request line is in; then the connection is
    /// answered 408 and closed. libmicrohttpd's idle timeout restarts with every byte, so it
    /// alone would let a client trickle a head forever. Before the request line, the limit is
    /// `idleTimeout` plus this, counted from when the connection went idle.
    public var headerTimeout: Int = 10
    /// Seconds a request body may take once the head is in; then the handler's 408, and close.
    public var bodyTimeout: Int = 10
    /// Largest request target (path and query) the handler sees; longer ones get the handler's
    /// 414. Targets longer than `connectionMemory` allows get libmicrohttpd's own 414 page.
    public var maxURLBytes: Int = 4 * 1024
    /// Most query parameters a request target may hold; more get the handler's 414. libmicrohttpd keeps each in
    /// the connection's memory, where 200 filled 8 KiB (and it answered its own 431, as if the headers were large).
    public var maxQueryParameters: Int = 64
    /// Largest total of header lines the handler sees; more gets the handler's 431. Heads larger
    /// than `connectionMemory` allows get libmicrohttpd's own 431 page.
    public var maxHeaderBytes: Int = 4 * 1024
    /// Largest request body accepted; larger ones get the handler's 413.
    public var maxBodySize: Int = 64 * 1024
    /// Bytes a streamed response may buffer for a slow client before writes answer `.full`.
    public var streamBufferLimit: Int = 256 * 1024
    /// Most bytes of `GET` and `HEAD` answers one client address may have queued and not read yet, over all its
    /// connections (0: no limit); an answer that would pass it gets the handler's 429 instead.
    public var unreadBytesPerClient: Int = 8 << 20
    /// Most bytes of answers every client together may have queued and not read yet (0: no limit); a `GET` or `HEAD`
    /// answer that would pass it gets the handler's 503 instead.
    public var unreadBytesTotal: Int = 256 << 20
    /// Pending connections the kernel queues before `accept`.
    public var listenBacklog: Int = 1024

    /// The defaults above.
    public init() {}
}
