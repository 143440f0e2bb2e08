import AlertCore
import MicroHTTP

/// Every response that shows store state goes out once the journal holds that state: `onChange` for changes,
/// `onStore` for other store work, `durable(_:showing:)` for an alert read without it. A response released earlier could show a change that a
/// crash then loses.
extension APIHandler {
    /// Runs store work that never waits, and answers once what it shows is durable: on this thread at once when
    /// the store is idle and nothing waits for a commit, else on a suspended connection. `respond` turns its value
    /// into the response, `problem` its error; a change the journal could not make durable is `503`.
    func onStore<T: Sendable>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        store.perform(work) { outcome, failure in
            if let failure { return pending.deliver(Problem(failure).response) }
            switch outcome {
            case .success(let value): pending.deliver(respond(value))
            case .failure(let error): pending.deliver(problem(error).response)
            }
        }
        return pending.reply()
    }

    /// Makes a change (a create, an answer, a dismissal: the store decides it, or with a cluster the database does)
    /// and answers once it is durable and readable here: on this thread at once when the store is idle and memory
    /// only, else on a suspended connection. `respond` turns its value into the response, `problem` its error (a
    /// change that could not be made durable is `503`).
    func onChange<T: Sendable>(
        _ change: (@escaping AlertStore.Completion<T>) -> Void,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        change { outcome in
            switch outcome {
            case .success(let value): pending.deliver(respond(value))
            case .failure(let error): pending.deliver(problem(error).response)
            }
        }
        return pending.reply()
    }

    /// `response`, once the last change to the alert it shows is durable (at once when it is).
    func durable(_ response: HTTPResponse, showing alert: Alert) -> HTTPReply {
        let pending = PendingResponse()
        store.whenDurable(alert.sequence) { failure in
            pending.deliver(failure.map { Problem($0).response } ?? response)
        }
        return pending.reply()
    }
}

