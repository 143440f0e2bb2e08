import CMicroHTTPD
import Locking
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: an internal epoll thread pool parses requests and
/// calls an `HTTPHandler`; requests that must wait are suspended connections, so no thread
/// ever blocks on application work.
///
/// ```swift
/// let server = try HTTPServer(configuration: config, handler: MyHandler())
/// print("listening on port \(server.port)")
/// // ...
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    /// The libmicrohttpd daemon.
    ///
    /// `@unchecked Sendable` invariant: the pointer is set once in `init` and only handed to
    /// libmicrohttpd functions that are safe from any thread (`MHD_get_daemon_info`,
    /// `MHD_quiesce_daemon`, `MHD_stop_daemon`); `lifecycle` makes the last two run once each.
    struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    enum Lifecycle {
        case running, draining, stopped
    }

    let core: ServerCore
    let daemon: Daemon
    let lifecycle = Lock(Lifecycle.running)
    /// Runs `ServerCore.watch` twice a second until the server stops.
    let watchdog: Task<Void, Never>

    /// The TCP port the server is bound to (the real one when configured with port 0).
    public let port: Int
    /// The host the server was asked to bind.
    public let host: String
    /// The connection limit in force, after fitting it to `RLIMIT_NOFILE`.
    public let connectionLimit: Int

    /// The version of the libmicrohttpd this process loaded (`MHD_get_version`), such as `0.9.75`.
    public static let libraryVersion = String(cString: MHD_get_version())

    /// The oldest libmicrohttpd the transport starts with. 0.9.74 is the release whose answers to broken
    /// requests docs/DESIGN.md lists (before it, a broken chunked body or a length past 64 bits closed the
    /// connection unanswered) and that pairs every "connection closed" notification with a "started" one
    /// (`ConnectionTracker` counts on it); 0.9.75 changed nothing of either on Linux, and is the version those
    /// answers and the tests were measured on.
    public static let minimumLibraryVersion = "0.9.75"

    /// Throws unless `version` (a libmicrohttpd version) is `minimumLibraryVersion` or later.
    public static func checkLibrary(version: String = libraryVersion) throws(HTTPServerError) {
        func numbers(_ text: String) -> [Int] {
            text.split(separator: ".").map { Int($0.prefix { $0.isASCII && $0.isNumber }) ?? 0 }
        }
        let found = numbers(version)
        let needed = numbers(minimumLibraryVersion)
        let width = max(found.count, needed.count)
        let pad = { (parts: [Int]) in parts + Array(repeating: 0, count: width - parts.count) }
        guard pad(found).lexicographicallyPrecedes(pad(needed)) else { return }
        throw .libraryTooOld(found: version, needed: minimumLibraryVersion)
    }

    /// Binds and starts serving at once.
    /// - Parameters:
    ///   - configuration: address, threads and limits.
    ///   - handler: the application; called on libmicrohttpd's threads.
    /// - Throws: `HTTPServerError` when the loaded libmicrohttpd is too old, or the address is bad or cannot
    ///   be bound.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) throws {
        try Self.checkLibrary()
        guard var address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError.badAddress(configuration.host)
        }
        core = ServerCore(handler: handler, configuration: configuration)
        host = configuration.host
        let connectionLimit = HTTPServer.fitToFileLimit(configuration.connectionLimit,
                                                        reserved: configuration.reservedDescriptors)
        self.connectionLimit = connectionLimit

        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let context = Unmanaged.passUnretained(core).toOpaque()
        let pointer = withUnsafeMutableBytes(of: &address.storage) { storage -> OpaquePointer? in
            var options: [MHD_OptionItem] = [
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: storage.baseAddress),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: connectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT,
                               value: configuration.connectionMemory, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeout, ptr_value: nil),
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE,
                               value: configuration.listenBacklog, ptr_value: nil),
            ]
            if configuration.threads > 1 {
                options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE,
                                              value: configuration.threads, ptr_value: nil))
            }
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return CMicroHTTPD_start_daemon(flags, UInt16(clamping: configuration.port), MHDCallbacks.access,
                                            context, MHDCallbacks.completed, MHDCallbacks.connection,
                                            MHDCallbacks.requestLine, context, &options)
        }
        guard let pointer else {
            throw HTTPServerError.startFailed(host: configuration.host, port: configuration.port, errno: errno)
        }
        daemon = Daemon(pointer: pointer)
        port = Int(CMicroHTTPD_bound_port(pointer))
        watchdog = Task { [core] in
            while true {
                do {
                    try await Task.sleep(for: .milliseconds(500))
                } catch {
                    break  // cancelled: the server stops
                }
                core.watch()
            }
        }
    }

    deinit {
        watchdog.cancel()
        if lifecycle.withLock({ $0 }) != .stopped {
            endSuspendedWork()
            MHD_stop_daemon(daemon.pointer)
        }
    }

    /// Connections open right now, idle keep-alive and suspended ones included.
    public var currentConnections: Int {
        lifecycle.withLock { state in
            state == .stopped ? 0 : Int(CMicroHTTPD_current_connections(daemon.pointer))
        }
    }

    /// Requests whose connection is suspended, waiting for deferred work.
    public var suspendedRequests: Int {
        core.state.withLock { $0.suspended.count }
    }

    /// Bytes of answers queued and not sent yet (`HTTPServerConfiguration.unreadBytesPerClient`).
    public var unreadResponseBytes: Int {
        core.budget.heldBytes
    }

    /// Streamed responses still open.
    public var openStreams: Int {
        core.state.withLock { $0.streams.count }
    }

    /// Raises the soft file limit to the hard one and keeps the connection limit below it,
    /// with room for the listener, epoll, the process's other descriptors and the `reserved` ones.
    private static func fitToFileLimit(_ wanted: Int, reserved: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = limit.rlim_cur == rlim_t.max ? wanted : Int(limit.rlim_cur) - 64 - reserved
        return max(1, min(wanted, available))
    }
}

extension HTTPServer {
    /// How long idle keep-alive clients get, after end-of-stream at shutdown, to close their side
    /// before libmicrohttpd stops; shutdown goes on as soon as all of them did.
    static let idleCloseGrace = Duration.milliseconds(500)

    /// Stops accepting connections; requests already received are still answered, each
    /// with `Connection: close`. Idempotent.
    public func beginDraining() {
        let first = lifecycle.withLock { state -> Bool in
            guard state == .running else { return false }
            state = .draining
            return true
        }
        guard first else { return }
        core.draining.store(true, ordering: .relaxed)
        let listener = MHD_quiesce_daemon(daemon.pointer)
        if listener >= 0 {
            _ = CMicroHTTPD_stop_handshakes(listener)
            adoptBacklog(of: listener)
            close(listener)
        }
    }

    /// Hands the connections the kernel already accepted for the listener to libmicrohttpd:
    /// closing the listener with them queued would reset them, requests and all.
    private func adoptBacklog(of listener: Int32) {
        // A blocking accept would wait forever once the queue is empty: without O_NONBLOCK, adopt nothing.
        let flags = fcntl(listener, F_GETFL)
        guard flags >= 0, fcntl(listener, F_SETFL, flags | O_NONBLOCK) == 0 else { return }
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client: Int32
            do throws(SystemCallError) {
                client = try retryingInterrupts("accept") {
                    withUnsafeMutablePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            CMicroHTTPD_accept_cloexec(listener, $0, &length)  // libmicrohttpd makes it non-blocking
                        }
                    }
                }
            } catch where error.errno == ECONNABORTED {
                continue  // that client is gone; the next may be there
            } catch {
                return
            }
            // On failure libmicrohttpd closes the socket itself.
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon.pointer, client, $0, length)
                }
            }
        }
    }

    /// Graceful stop: stops accepting, waits up to `grace` for deferred work to answer and
    /// for every started request to finish, answers what is still suspended with the
    /// handler's `shuttingDown` response, closes idle connections, then stops libmicrohttpd.
    /// Every request either gets its whole response or is closed without being run. Idempotent.
    /// - Parameter grace: the most time given to in-flight requests.
    public func shutdown(grace: Duration = .seconds(10)) async {
        beginDraining()
        await waitUntil(.now + grace) { isIdle }
        endSuspendedWork()
        await waitUntil(.now + .seconds(2)) { isIdle }
        await closeIdleConnections()
        watchdog.cancel()
        let first = lifecycle.withLock { state -> Bool in
            guard state != .stopped else { return false }
            state = .stopped
            return true
        }
        if first { MHD_stop_daemon(daemon.pointer) }
    }

    /// Sends end-of-stream on idle keep-alive connections and gives their clients a moment to
    /// close them: a client that sends a request meanwhile sees the close, where a close with its
    /// request unread would reset the connection. That request is closed without being run.
    /// Then no request starts any more, and those that started send their answers.
    private func closeIdleConnections() async {
        core.tracker.finishIdle()
        await waitUntil(.now + Self.idleCloseGrace) { core.tracker.lingering == 0 }
        core.tracker.refuseAll()
        await waitUntil(.now + .seconds(1)) { core.inFlight.load(ordering: .relaxed) == 0 }
    }

    /// Lets nothing suspend any more, answers every suspended request with the handler's
    /// `shuttingDown` response and ends every stream: `MHD_stop_daemon` aborts the process
    /// while any connection is suspended.
    func endSuspendedWork() {
        core.state.withLock { $0.stopping = true }
        core.forceAnswerSuspended()
        core.finishStreams()
    }

    /// No request is suspended, streaming, or between its head and its completion.
    private var isIdle: Bool {
        core.inFlight.load(ordering: .relaxed) == 0 && core.state.withLock { $0.suspended.isEmpty && $0.streams.isEmpty }
    }

    private func waitUntil(_ deadline: ContinuousClock.Instant, _ done: () -> Bool) async {
        while !done(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case badAddress(String)
        case startFailed(host: String, port: Int, errno: Int32)
        case libraryTooOld(found: String, needed: String)
    }

    private let code: Code

    /// `host` is neither an IP address nor a name that resolves.
    public static func badAddress(_ host: String) -> HTTPServerError { .init(code: .badAddress(host)) }

    /// libmicrohttpd refused to start (address in use, no permission, ...).
    public static func startFailed(host: String, port: Int, errno: Int32) -> HTTPServerError {
        .init(code: .startFailed(host: host, port: port, errno: errno))
    }

    /// The libmicrohttpd loaded is older than `HTTPServer.minimumLibraryVersion`.
    public static func libraryTooOld(found: String, needed: String) -> HTTPServerError {
        .init(code: .libraryTooOld(found: found, needed: needed))
    }

    public var description: String {
        switch code {
        case .badAddress(let host):
            "cannot listen on '\(host)': not an IP address or a resolvable host name"
        case .startFailed(let host, let port, let number):
            "cannot listen on \(host):\(port): \(String(cString: strerror(number)))"
        case .libraryTooOld(let found, let needed):
            "libmicrohttpd \(found) is loaded, and \(needed) or later is needed (its answers to broken requests "
                + "are those of \(needed)); install a newer libmicrohttpd (Debian 12: libmicrohttpd12)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
