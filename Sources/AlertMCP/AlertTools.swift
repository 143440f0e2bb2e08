import JSON

/// The runs of `ask`, `create`, `wait`, `get`, `dismiss` and `list`.
enum AlertTools {
    static let draftArguments = [
        "title", "message", "style", "buttons", "destructive", "fields", "timeout", "presenter", "tag",
        "idempotencyKey",
    ]

    /// Creates the alert, then waits for its Result with no bound (the transport carries out the wait).
    @Sendable static func ask(_ arguments: JSONObject, _ context: ToolContext) async -> ToolStep<JSONValue> {
        let draft: AlertDraftInput
        let key: String?
        do {
            (draft, key) = try readDraft(arguments)
        } catch {
            return .done(ToolResult.failure(error.message))
        }
        let alert: AlertSnapshot
        do {
            alert = try await context.backend.create(draft, idempotencyKey: key)
        } catch {
            return .done(ToolResult.failure("alertd did not create the alert: \(error.reason)"))
        }
        // What the wait keeps, for as long as the person takes: the id and the fields, not the whole alert.
        let (id, fields, reveal, withdraw) = (alert.id, alert.fields, context.options.revealSecure, context.withdrawal)
        return await context.waiting(for: alert, until: nil) { waited in
            switch waited {
            case .success(let outcome?):
                return ToolResult.success(Shapes.answer(id, fields, outcome, reveal: reveal))
            case .failure(let error) where error.kind == .cancelled:
                await withdraw(id)
                return ToolResult.failure("cancelled; alert \(id) was withdrawn")
            case .failure(let error):
                return ToolResult.failure(
                    "alert \(id) was created, but waiting for its answer failed: \(error.reason). "
                        + "Call wait with id \(id) to go on waiting."
                )
            case .success(nil):
                // Not reached: a wait without a deadline ends resolved (`ToolContext.waiting`).
                return ToolResult.failure("alert \(id) is still pending. Call wait with id \(id).")
            }
        }
    }

    @Sendable static func create(_ arguments: JSONObject, _ context: ToolContext) async -> JSONValue {
        do {
            let (draft, key) = try readDraft(arguments)
            let alert = try await context.backend.create(draft, idempotencyKey: key)
            return ToolResult.success(Shapes.alert(alert, reveal: context.options.revealSecure))
        } catch let error as ToolInputError {
            return ToolResult.failure(error.message)
        } catch let error as AlertBackendError {
            return ToolResult.failure("alertd did not create the alert: \(error.reason)")
        } catch {
            return ToolResult.failure("\(error)")
        }
    }

    @Sendable static func wait(_ arguments: JSONObject, _ context: ToolContext) async -> ToolStep<JSONValue> {
        let id: String
        let seconds: Double
        do {
            let reader = try Arguments(arguments, allowed: ["id", "seconds"])
            id = try reader.required("id") { key throws(ToolInputError) in try reader.string(key) }
            seconds = try reader.number("seconds", in: 0...3600) ?? 60
        } catch {
            return .done(ToolResult.failure(error.message))
        }
        let alert: AlertSnapshot
        do {
            alert = try await context.backend.alert(id)
        } catch {
            return .done(ToolResult.failure(failure(error, id: id)))
        }
        let (reveal, fields) = (context.options.revealSecure, alert.fields)
        return await context.waiting(for: alert, until: .now + .milliseconds(Int64(seconds * 1000))) { waited in
            switch waited {
            case .success(let outcome):
                return ToolResult.success([
                    "alertId": .string(id),
                    "state": .string(outcome == nil ? "pending" : "resolved"),
                    "result": outcome.map { .object(Shapes.result($0, fields: fields, reveal: reveal)) } ?? .null,
                ])
            case .failure(let error):
                return ToolResult.failure(failure(error, id: id))
            }
        }
    }

    @Sendable static func get(_ arguments: JSONObject, _ context: ToolContext) async -> JSONValue {
        let id: String
        do {
            id = try readID(arguments)
        } catch {
            return ToolResult.failure(error.message)
        }
        do {
            let alert = try await context.backend.alert(id)
            return ToolResult.success(Shapes.alert(alert, reveal: context.options.revealSecure))
        } catch {
            return ToolResult.failure(failure(error, id: id))
        }
    }

    @Sendable static func dismiss(_ arguments: JSONObject, _ context: ToolContext) async -> JSONValue {
        let id: String
        do {
            id = try readID(arguments)
        } catch {
            return ToolResult.failure(error.message)
        }
        let reveal = context.options.revealSecure
        do throws(AlertBackendError) {
            let alert = try await context.backend.alert(id)
            let outcome: AlertOutcome
            var already = false
            do throws(AlertBackendError) {
                outcome = try await context.backend.dismiss(id)
            } catch {
                guard case .alreadyResolved(let won) = error.kind else { throw error }
                outcome = won
                already = true
            }
            return ToolResult.success([
                "alertId": .string(id), "alreadyResolved": .bool(already),
                "result": .object(Shapes.result(outcome, fields: alert.fields, reveal: reveal)),
            ])
        } catch {
            return ToolResult.failure(failure(error, id: id))
        }
    }

    @Sendable static func list(_ arguments: JSONObject, _ context: ToolContext) async -> JSONValue {
        let limit: Int64
        do {
            limit = try Arguments(arguments, allowed: ["limit"]).integer("limit", in: 1...100) ?? 100
        } catch {
            return ToolResult.failure(error.message)
        }
        do {
            let alerts = try await context.backend.pending(limit: Int(limit))
            let reveal = context.options.revealSecure
            return ToolResult.success(["alerts": .array(alerts.map { .object(Shapes.alert($0, reveal: reveal)) })])
        } catch {
            return ToolResult.failure("alertd did not list the alerts: \(error.reason)")
        }
    }

    // MARK: Arguments

    static func readID(_ arguments: JSONObject) throws(ToolInputError) -> String {
        let reader = try Arguments(arguments, allowed: ["id"])
        return try reader.required("id") { key throws(ToolInputError) in try reader.string(key) }
    }

    static func readDraft(_ arguments: JSONObject) throws(ToolInputError) -> (AlertDraftInput, String?) {
        let reader = try Arguments(arguments, allowed: draftArguments)
        var draft = AlertDraftInput()
        draft.title = try reader.string("title")
        draft.message = try reader.string("message")
        draft.style = try reader.oneOf("style", ["alert", "actionSheet"]) ?? "alert"
        draft.tag = try reader.integer("tag") ?? 0
        draft.presenter = try reader.string("presenter")
        draft.timeout = try reader.number("timeout", in: 0...31_536_000)
        if draft.timeout == 0 {
            throw ToolInputError(argument: "/timeout", reason: "must be more than 0 seconds")
        }
        for (index, element) in (try reader.array("buttons", maxCount: 16) ?? []).enumerated() {
            switch element {
            case .string(let title):
                draft.buttons.append(.init(title: title))
            case .object(let object):
                let button = try Arguments(object, path: "/buttons/\(index)", allowed: ["title", "style"])
                draft.buttons.append(.init(
                    title: try button.required("title") { key throws(ToolInputError) in try button.string(key) },
                    style: try button.oneOf("style", ["default", "cancel", "destructive"])
                ))
            default:
                throw ToolInputError(
                    argument: "/buttons/\(index)", reason: "must be a title or {title, style}, not \(element.typeName)"
                )
            }
        }
        for (index, element) in (try reader.array("destructive", maxCount: 16) ?? []).enumerated() {
            guard case .string(let title) = element else {
                throw ToolInputError(argument: "/destructive/\(index)", reason: "must be a button title (a string)")
            }
            draft.destructive.append(title)
        }
        for (index, element) in (try reader.array("fields", maxCount: 8) ?? []).enumerated() {
            guard case .object(let object) = element else {
                throw ToolInputError(argument: "/fields/\(index)", reason: "must be an object, not \(element.typeName)")
            }
            let field = try Arguments(
                object, path: "/fields/\(index)", allowed: ["placeholder", "text", "secure", "keyboard"]
            )
            draft.fields.append(.init(
                text: try field.string("text") ?? "", placeholder: try field.string("placeholder") ?? "",
                secure: try field.bool("secure") ?? false, keyboard: try field.string("keyboard") ?? "default"
            ))
        }
        let key = try reader.string("idempotencyKey")
        if let key, key.isEmpty || key.utf8.count > 255 || !key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw ToolInputError(
                argument: "/idempotencyKey", reason: "must be 1 to 255 visible ASCII characters, no spaces"
            )
        }
        return (draft, key)
    }

    static func failure(_ error: AlertBackendError, id: String) -> String {
        switch error.kind {
        case .notFound: "no alert \(id) (or it is not yours)"
        default: "alertd: \(error.reason)"
        }
    }
}
