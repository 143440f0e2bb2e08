import AlertCore
import MicroHTTP

/// Long-polls that wait on the store with a callback, not a task: `GET /v1/alerts/{id}?wait=`, its
/// `/response?wait=`, and `GET /v1/alerts?index=&wait=`. The connection is suspended
/// (`HTTPReply.suspended`); the store keeps the waiter's wake closure, which answers through the
/// responder. A waiting request costs its connection, the responder and the closures, no task and
/// no async frames (docs/DESIGN.md, "Waiting").
extension APIHandler {
    /// Waits on a suspended connection until the alert resolves or `wait` passes, then answers
    /// with `render` of the alert (404 when it was dropped meanwhile, 503 at shutdown).
    /// - Parameters:
    ///   - id: the alert.
    ///   - wait: the most time to wait, > 0.
    ///   - render: the response for the alert as the wait ends; runs on the store's executor.
    func whenResolved(_ id: AlertID, wait: Duration, render: @escaping @Sendable (Alert) -> HTTPResponse)
        -> HTTPReply
    {
        let store = self.store
        return .suspended { responder in
            let wake: @Sendable (WaitOutcome) -> Void = { outcome in
                switch outcome {
                case .alert(let alert): responder.respond(.response(render(alert)))
                case .index, .notFound: responder.respond(.response(Problem(AlertStoreError.notFound(id)).response))
                case .shuttingDown: responder.respond(.response(Problem.shuttingDown.response))
                case .unavailable(let failure): responder.respond(.response(Problem(failure).response))
                }
            }
            Self.register(responder, on: store) { store throws(AlertStoreError) in
                try store.whenResolved(id, timeout: wait, wake)
            }
        }
    }

    /// Waits on a suspended connection until the store passes `index` or `wait` passes, then lists.
    /// The page is read and written on a task: a wake must be quick, a page may be long.
    func whenChanged(_ request: ListRequest, index: UInt64) -> HTTPReply {
        let store = self.store
        let query = request.query
        let (wait, limit) = (request.wait, request.limit)
        return .suspended { responder in
            let wake: @Sendable (WaitOutcome) -> Void = { outcome in
                switch outcome {
                case .index, .alert, .notFound: break
                case .shuttingDown: return responder.respond(.response(Problem.shuttingDown.response))
                case .unavailable(let failure): return responder.respond(.response(Problem(failure).response))
                }
                // Read once everything it may show is durable, like any list.
                store.read({ store in store.visibleList(query) }) { outcome in
                    let response = switch outcome {
                    case .success(let page): Self.listResponse(page, limit: limit)
                    case .failure(let error): Problem(error).response
                    }
                    responder.respond(.response(response))
                }
            }
            Self.register(responder, on: store) { store throws(AlertStoreError) in
                try store.whenChanged(after: index, timeout: wait, wake)
            }
        }
    }

    /// A producer's blocking list query: waits on a task until one of `owner`'s alerts changes after `index` (other
    /// producers' changes wake the task, which finds nothing it may see and waits again) or `wait` passes, then lists.
    func whenOwnChanged(_ request: ListRequest, index: UInt64, owner: String) -> HTTPReply {
        let store = self.store
        let query = request.query
        let deadline = ContinuousClock.now + request.wait
        return .deferred {
            while true {
                let timedOut = ContinuousClock.now >= deadline || Task.isCancelled
                let step: (page: AlertPage?, seen: UInt64) = await store.run { @Sendable (store: isolated AlertStore) in
                    let changed = timedOut || store.index(visibleTo: owner) > index
                    return (changed ? store.visibleList(query) : nil, store.index)
                }
                // Answered as any list is, once what it shows is durable.
                if step.page != nil { return self.list(request) }
                let seen = step.seen
                do throws(AlertStoreError) {
                    _ = try await store.waitForChange(after: seen, timeout: deadline - .now)
                } catch {
                    return .response(Problem(error).response)
                }
            }
        }
    }

    /// Registers a callback waiter on the store (at once when it is idle, else from a short task: `run(_:then:)`),
    /// and has the transport cancel it when the client hangs up or the server gives up on the request. A
    /// registration that fails answers the request with its problem.
    private static func register(
        _ responder: HTTPResponder, on store: AlertStore,
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> WaiterTicket
    ) {
        store.run(work) { outcome in
            switch outcome {
            case .success(let ticket): responder.onCancel { cancel(ticket, on: store) }
            case .failure(let error): responder.respond(.response(Problem(error).response))
            }
        }
    }

    /// Ends a waiter early: its wake answers with things as they are, to a client that is gone or
    /// was answered by the transport already.
    private static func cancel(_ ticket: WaiterTicket, on store: AlertStore) {
        store.run({ store in store.cancelWaiter(ticket) }, then: { _ in })
    }
}
