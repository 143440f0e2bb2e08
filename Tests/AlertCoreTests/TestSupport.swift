@testable import AlertCore

/// Buttons from plain titles, as the seeds pass them.
func plain(_ titles: String...) -> [ButtonSpec] {
    titles.map { ButtonSpec(title: $0) }
}

/// The error `create` throws for a draft, or `nil` when it succeeds.
func createError(_ draft: AlertDraft, in store: AlertStore = AlertStore()) async -> AlertStoreError? {
    do {
        _ = try await store.create(draft)
        return nil
    } catch {
        return error
    }
}

/// The pointers of the issues `create` reports for a draft (empty when it succeeds).
func pointers(_ draft: AlertDraft) async -> [String] {
    await createError(draft)?.issues.map(\.pointer) ?? []
}

/// The error an operation throws, or `nil`.
func storeError<T>(_ operation: () async throws(AlertStoreError) -> T) async -> AlertStoreError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// A draft with a title and the given buttons.
func draft(_ buttons: [ButtonSpec] = [], title: String = "Question", presenter: String = "root") -> AlertDraft {
    AlertDraft(title: title, presenter: presenter, buttons: buttons)
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

extension AlertStore {
    /// `inline(_:)` for store work that throws: `nil` when the store was busy and `work` did not run.
    nonisolated func inlineOrBusy<T: Sendable>(
        _ work: @Sendable (isolated AlertStore) throws(AlertStoreError) -> T
    ) throws(AlertStoreError) -> T? {
        try inline { store in Result { () throws(AlertStoreError) -> T in try work(store) } }?.get()
    }
}

/// A draft with this title that passed the default rules, for `write(.create(…))`.
func prepared(_ title: String) throws(AlertStoreError) -> PreparedAlert {
    try PreparedAlert(AlertDraft(title: title), limits: StoreLimits())
}
