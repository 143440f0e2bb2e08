/// The state one request shares between libmicrohttpd's thread and whoever answers it while its connection is
/// suspended (deferred work, a responder, shutdown), as a state machine: each transition says what the caller
/// must do (suspend, resume, run or drop cancel handlers). `ConnectionContext` runs it under its mutex and
/// carries out the actions; the tests run it alone.
///
/// Suspensions are numbered: a reply or a cancel handler names the one it was made for, and a late one for an
/// earlier suspension does nothing.
struct Handoff {
    /// What to run if the transport gives up on a suspension before it is answered: cancels its deferred task,
    /// or a responder's `onCancel` handlers.
    typealias CancelHandler = @Sendable () -> Void

    enum State {
        /// Not suspended: receiving, in the handler, or answered. `cancelled`: the transport gave up on suspension
        /// `generation` before it was answered.
        case running(cancelled: Bool)
        /// Suspension `generation` waits for its reply; `onCancel` runs if the transport gives up first.
        case suspended(onCancel: CancelHandler?)
        /// Suspension `generation` waits for its reply, and the transport gave up on it (the client hung up): its
        /// handlers ran. libmicrohttpd keeps the connection suspended until the reply comes.
        case abandoned
        /// Suspension `generation` was resumed with a reply, which the next handler call takes.
        case resumed(HTTPReply, cancelled: Bool)
        /// Answered at shutdown: never suspended or resumed again, so that nothing can resume the connection once
        /// `MHD_stop_daemon` has freed it. A reply may be left to take.
        case closed(HTTPReply?, cancelled: Bool)
    }

    /// What `suspend` tells the caller.
    enum Suspend: Equatable {
        /// Suspend the connection now (before anyone else can resume it); its replies name `generation`.
        case suspend(generation: Int)
        /// Shutdown answered the request already: answer at once, never suspend.
        case refuse
    }

    /// What `resume` tells the caller.
    enum Resume {
        /// Resume the connection; release the dropped cancel handlers (after leaving the mutex: what they
        /// captured may do work as it is released).
        case resume(dropped: CancelHandler?)
        /// Another party resumed it first, or the reply is for an earlier suspension: do nothing.
        case ignore
    }

    /// What `addCancelHandler` tells the caller.
    enum AddCancel {
        /// Kept: it runs if the transport gives up on the suspension.
        case kept
        /// The transport gave up already: run the handler now.
        case runNow
        /// The suspension was answered (or is not the current one): release the handler unrun.
        case drop
    }

    /// What `forceAnswer` tells the caller.
    enum Force {
        /// The request was suspended: resume it (its reply is the one given), then run these handlers.
        case resume(running: CancelHandler?)
        /// It was not suspended: nothing to resume.
        case none
    }

    private(set) var state = State.running(cancelled: false)
    /// Counts suspensions.
    private(set) var generation = 0

    /// The handler decided to suspend the request.
    mutating func suspend() -> Suspend {
        if case .closed = state { return .refuse }
        generation += 1
        state = .suspended(onCancel: nil)
        return .suspend(generation: generation)
    }

    /// Deferred work or a responder has `reply` for suspension `generation`.
    mutating func resume(_ generation: Int, with reply: HTTPReply) -> Resume {
        guard generation == self.generation else { return .ignore }
        switch state {
        case .suspended(let handlers):
            state = .resumed(reply, cancelled: false)
            return .resume(dropped: handlers)
        case .abandoned:
            state = .resumed(reply, cancelled: true)
            return .resume(dropped: nil)
        case .running, .resumed, .closed:
            return .ignore
        }
    }

    /// Adds `handler` to what runs if the transport gives up on suspension `generation`.
    mutating func addCancelHandler(_ generation: Int, _ handler: @escaping CancelHandler) -> AddCancel {
        guard generation == self.generation else { return .drop }
        if case .suspended(let earlier) = state {
            guard let earlier else {
                state = .suspended(onCancel: handler)
                return .kept
            }
            state = .suspended(onCancel: {
                earlier()
                handler()
            })
            return .kept
        }
        return isCancelled(generation) ? .runNow : .drop
    }

    /// The client hung up while suspended: the handlers to run, once; nil when there is nothing to cancel.
    mutating func cancel() -> CancelHandler? {
        guard case .suspended(let handlers) = state else { return nil }
        state = .abandoned
        return handlers
    }

    /// Shutdown answers the request with `reply` if it is suspended, and forbids any later suspension or resume.
    mutating func forceAnswer(with reply: HTTPReply) -> Force {
        switch state {
        case .running(let cancelled):
            state = .closed(nil, cancelled: cancelled)
            return .none
        case .suspended(let handlers):
            state = .closed(reply, cancelled: true)
            return .resume(running: handlers)
        case .abandoned:
            state = .closed(reply, cancelled: true)
            return .resume(running: nil)
        case .resumed(let pending, let cancelled):
            state = .closed(pending, cancelled: cancelled)
            return .none
        case .closed:
            return .none
        }
    }

    /// The reply stored by the last resume, on the handler call that follows it; nil when there is none.
    mutating func takeReply() -> HTTPReply? {
        switch state {
        case .resumed(let reply, let cancelled):
            state = .running(cancelled: cancelled)
            return reply
        case .closed(let reply?, let cancelled):
            state = .closed(nil, cancelled: cancelled)
            return reply
        case .running, .suspended, .abandoned, .closed(nil, _):
            return nil
        }
    }

    /// Whether the connection is suspended (libmicrohttpd keeps it and its socket open).
    var isSuspended: Bool {
        switch state {
        case .suspended, .abandoned: true
        case .running, .resumed, .closed: false
        }
    }

    /// Whether suspension `generation` still waits for its reply.
    func awaits(_ generation: Int) -> Bool {
        generation == self.generation && isSuspended
    }

    /// Whether the transport gave up on suspension `generation`.
    func isCancelled(_ generation: Int) -> Bool {
        guard generation == self.generation else { return false }
        switch state {
        case .abandoned: return true
        case .running(let cancelled), .resumed(_, let cancelled), .closed(_, let cancelled): return cancelled
        case .suspended: return false
        }
    }
}
