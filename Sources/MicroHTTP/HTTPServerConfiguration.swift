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
    public var connectionLimit: Int = 10_000
    /// Memory libmicrohttpd may use per connection for headers and buffers, in bytes.
    public var connectionMemory: Int = 16 * 1024
    /// Seconds an idle connection is kept open (suspended connections are not idle).
    public var idleTimeout: Int = 30
    /// Largest request body accepted; larger ones get the handler's 413.
    public var maxBodySize: Int = 64 * 1024
    /// Bytes a streamed response may buffer for a slow client before writes answer `.full`.
    public var streamBufferLimit: Int = 256 * 1024
    /// Pending connections the kernel queues before `accept`.
    public var listenBacklog: Int = 1024

    /// The defaults above.
    public init() {}
}
