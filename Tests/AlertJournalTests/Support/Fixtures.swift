import AlertCore
import AlertJournal
import Foundation
import HTTPTestSupport

/// A date the journal keeps as it is (whole milliseconds), `seconds` after 2026-01-01.
func stored(_ seconds: Double) -> Date {
    SQLiteJournal.storedDate(Date(timeIntervalSince1970: 1_767_225_600 + seconds))
}

/// A pending alert with every kind of field: buttons of each style, fields with each option, an owner, a
/// deadline and a callback.
func fullAlert(_ sequence: UInt64, owner: String? = "deployer", callback: String? = "https://hooks.example/a") -> Alert {
    Alert(
        id: AlertID(rawValue: "id-\(sequence)-" + String(repeating: "x", count: 10)),
        sequence: sequence,
        title: "Deploy build \(sequence)? \u{1F680} \"quoted\" \\ back",
        message: "Line one\nline two\ttab, ünïcødé",
        style: .alert,
        tag: -42,
        presenter: "ops.team-1",
        animated: false,
        buttons: [
            AlertButton(index: 0, title: "Cancel", style: .cancel),
            AlertButton(index: 1, title: "Deploy", style: .default),
            AlertButton(index: 2, title: "Wipe", style: .destructive),
        ],
        fields: [
            AlertField(index: 0, text: "v1.2", placeholder: "version", secure: false, keyboard: .asciiCapable),
            AlertField(index: 1, text: "", placeholder: "password", secure: true, keyboard: .numberPad),
        ],
        createdAt: stored(Double(sequence)),
        expiresAt: stored(Double(sequence) + 3600.5),
        delivery: callback.map(WebhookDelivery.init(url:)),
        owner: owner
    )
}

/// A plain action sheet: one button, no fields, no owner, no deadline, no callback.
func plainAlert(_ sequence: UInt64, message: String = "") -> Alert {
    Alert(
        id: AlertID(rawValue: "plain-\(sequence)"),
        sequence: sequence,
        title: "Question \(sequence)",
        message: message,
        style: .actionSheet,
        tag: Int64(sequence),
        presenter: "root",
        animated: true,
        buttons: [AlertButton(index: 0, title: "OK", style: .default)],
        fields: [],
        createdAt: stored(Double(sequence))
    )
}

/// `alert` resolved as `resolution`, choosing button `index`, with field `values`.
func resolved(_ alert: Alert, _ resolution: Resolution, button index: Int, values: [String] = []) -> Alert {
    var alert = alert
    alert.result = AlertResult(
        buttonIndex: index, buttonTitle: alert.buttons[index].title, ok: alert.buttons[index].style != .cancel,
        values: values, resolution: resolution, resolvedAt: stored(10_000 + Double(alert.sequence)))
    return alert
}

/// A draft with every member set.
func fullDraft(timeout: Double? = 3600.5, callback: String? = "https://hooks.example/a") -> AlertDraft {
    AlertDraft(
        title: "Deploy?", message: "to prod", style: .alert, tag: 7, presenter: "ops", animated: false,
        buttons: [ButtonSpec(title: "No"), ButtonSpec(title: "Yes", style: .default), ButtonSpec(title: "Wipe", style: .destructive)],
        destructive: ["Wipe"],
        fields: [FieldSpec(text: "a", placeholder: "b", secure: true, keyboard: .emailAddress)],
        timeout: timeout, callback: callback)
}

extension SQLiteJournal {
    /// Appends `records` and waits until they are committed; returns the failure, if any.
    @discardableResult
    func commit(_ records: [JournalRecord]) async -> JournalFailure? {
        await withCheckedContinuation { continuation in
            append(records) { continuation.resume(returning: $0) }
        }
    }
}

/// The error `open` throws, or nil (closing what it opened). A lock held by this process is waited out as `open`
/// does, unless `held` says the test holds it itself.
func openError(_ directory: String, eventHistory: Int = 100, held: Bool = false) async -> JournalOpenError? {
    do {
        let (journal, _) = try await TestTime.retrying(while: { !held && isHeldByThisProcess($0) }) {
            try SQLiteJournal.open(directory: directory, eventHistory: eventHistory)
        }
        journal.close()
        return nil
    } catch {
        return error as? JournalOpenError
    }
}

/// Whether `error` says that this process holds the data dir. Right after this process closed a journal, that passes:
/// a child that another test spawned at that moment holds a copy of the lock's open file (and with it the `flock`)
/// from its fork until its exec.
func isHeldByThisProcess(_ error: any Error) -> Bool {
    (error as? JournalOpenError)?.reason == .locked(pid: getpid())
}

/// Opens the journal in `directory`, waiting out a lock that reads as held by this process (`isHeldByThisProcess`).
func open(_ directory: String, eventHistory: Int = 100, maxPageCount: Int? = nil) async throws
    -> (SQLiteJournal, StoreImage)
{
    try await TestTime.retrying(while: isHeldByThisProcess) {
        try SQLiteJournal.open(directory: directory, eventHistory: eventHistory, maxPageCount: maxPageCount)
    }
}

/// The image the journal in `directory` holds now (opening and closing it).
func image(_ directory: String, eventHistory: Int = 100) async throws -> StoreImage {
    let (journal, image) = try await open(directory, eventHistory: eventHistory)
    journal.close()
    return image
}

/// An idempotency key of an image, comparable.
struct KeyRow: Equatable {
    var owner: String?
    var key: String
    var draft: AlertDraft
    var sequence: UInt64
}

extension StoreImage {
    /// The idempotency keys, comparable.
    var keyRows: [KeyRow] {
        idempotency.map { KeyRow(owner: $0.record.owner, key: $0.record.key, draft: $0.record.draft, sequence: $0.sequence) }
    }
}
