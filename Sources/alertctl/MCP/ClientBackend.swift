import AlertClient
import AlertMCP
import Foundation

/// `AlertBackend` over HTTP with `AlertClient`: what `alertctl mcp` and `alertctl hook claude-code` ask through.
///
/// Creates retry a lost connection with the same idempotency key (a restarted alertd with a data dir returns the
/// alert the first attempt made); waits long-poll and ride out an alertd restart, so a waiting `ask` keeps its alert
/// and returns the answer once.
struct ClientBackend: AlertBackend {
    /// The client; a wait that loses alertd says so on standard error, and when it is back.
    let context: CommandContext
    /// How long alertd may stay unreachable before a create gives up.
    var createGiveUp: Duration = .seconds(30)

    var client: AlertClient { context.client }

    func create(_ draft: AlertDraftInput, idempotencyKey: String?) async throws(AlertBackendError) -> AlertSnapshot {
        let input = try Self.input(draft)
        do {
            let alert = try await client.createRetrying(
                input, idempotencyKey: idempotencyKey ?? UUID().uuidString, giveUpAfter: createGiveUp
            )
            return Self.snapshot(alert)
        } catch {
            throw Self.backendError(error)
        }
    }

    func alert(_ id: String) async throws(AlertBackendError) -> AlertSnapshot {
        do {
            return Self.snapshot(try await client.alert(id))
        } catch {
            throw Self.backendError(error)
        }
    }

    func result(_ id: String, until deadline: ContinuousClock.Instant?) async throws(AlertBackendError)
        -> AlertOutcome?
    {
        let timeout = deadline.map { deadline -> Double in
            let left = (deadline - .now).components
            return max(0.001, Double(left.seconds) + Double(left.attoseconds) / 1e18)
        }
        do {
            return try await WaitCommand.waitForResult(context, id, timeout: timeout).map(Self.outcome)
        } catch {
            throw Self.backendError(error)
        }
    }

    func dismiss(_ id: String) async throws(AlertBackendError) -> AlertOutcome {
        do {
            return Self.outcome(try await client.dismiss(id))
        } catch {
            throw Self.backendError(error)
        }
    }

    func pending(limit: Int) async throws(AlertBackendError) -> [AlertSnapshot] {
        do {
            return try await client.list(limit: limit).alerts.map(Self.snapshot)
        } catch {
            throw Self.backendError(error)
        }
    }

    // MARK: Conversions

    static func input(_ draft: AlertDraftInput) throws(AlertBackendError) -> AlertInput {
        guard let style = AlertStyle(rawValue: draft.style) else {
            throw AlertBackendError(.rejected, "style must be alert or actionSheet, not \(draft.style)")
        }
        var fields: [FieldInput] = []
        for (index, field) in draft.fields.enumerated() {
            guard let keyboard = Keyboard(rawValue: field.keyboard) else {
                let names = Keyboard.allCases.map(\.rawValue).joined(separator: ", ")
                throw AlertBackendError(
                    .rejected, "/fields/\(index)/keyboard: \(field.keyboard) is not a keyboard (one of \(names))"
                )
            }
            fields.append(FieldInput(
                placeholder: field.placeholder, text: field.text, secure: field.secure, keyboard: keyboard
            ))
        }
        var input = AlertInput(
            title: draft.title, message: draft.message, style: style, tag: draft.tag, presenter: draft.presenter,
            buttons: draft.buttons.map { ButtonInput($0.title, style: $0.style) }, destructive: draft.destructive,
            fields: fields, timeout: draft.timeout
        )
        input.tool = draft.tool
        input.toolInput = draft.tool == nil ? nil : draft.toolInput
        return input
    }

    static func snapshot(_ alert: RemoteAlert) -> AlertSnapshot {
        AlertSnapshot(
            id: alert.id, title: alert.title, message: alert.message, style: alert.style, presenter: alert.presenter,
            tag: alert.tag, buttons: alert.buttons.map { .init(index: $0.index, title: $0.title, style: $0.style) },
            fields: alert.fields.map {
                .init(index: $0.index, placeholder: $0.placeholder, secure: $0.secure, keyboard: $0.keyboard)
            },
            result: alert.result.map(outcome), createdAt: alert.createdAt, expiresAt: alert.expiresAt
        )
    }

    static func outcome(_ result: RemoteResult) -> AlertOutcome {
        AlertOutcome(
            buttonIndex: result.buttonIndex, buttonTitle: result.buttonTitle, ok: result.ok, values: result.values,
            resolution: result.resolution, resolvedAt: result.resolvedAt, responder: result.responder
        )
    }

    static func backendError(_ error: AlertClientError) -> AlertBackendError {
        switch error.kind {
        case .cancelled:
            return .cancelled
        case .unreachable, .timedOut:
            return AlertBackendError(.unreachable, error.reason)
        case .lost:
            return AlertBackendError(.notFound, error.reason)
        case .server:
            let detail = error.reason.replacingOccurrences(of: "\n  ", with: "; ")
            switch error.status {
            case 404: return AlertBackendError(.notFound, detail)
            case 401, 403: return AlertBackendError(.forbidden, detail)
            case 409:
                if let result = error.problem?.result {
                    return AlertBackendError(.alreadyResolved(outcome(result)), detail)
                }
                return AlertBackendError(.rejected, detail)
            case let status? where status >= 500: return AlertBackendError(.failed, detail)
            default: return AlertBackendError(.rejected, detail)
            }
        case .invalidResponse, .configuration:
            return AlertBackendError(.failed, error.reason)
        }
    }
}
