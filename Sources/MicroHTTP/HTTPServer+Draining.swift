import CMicroHTTPD
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
