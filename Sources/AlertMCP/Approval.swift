import JSON

/// The approval alert a tool call becomes (the `approve` tool and `alertctl hook claude-code`), and the decision its
/// Result gives. The dashboard reads these alerts by their shape: keep it exactly.
///
/// - title `Allow <tool>?`
/// - message: the tool's input as JSON, 2-space indent, keys sorted, cut to alertd's limit with a last line
///   `… (cut, N more bytes)`; then, from the hook, a blank line and `Session: …` and `Directory: …` lines
/// - buttons `Deny` (cancel, index 0) and `Allow` (index 1); one field, placeholder `Reason (optional)`
/// - `tool` the tool's name and `toolInput` its input's members as text (`toolInputTexts`), for alertd's rules
public enum Approval {
    /// alertd's limit on a message, in characters.
    public static let messageLimit = 4096
    /// alertd's limit on a title, in characters.
    public static let titleLimit = 256
    /// The field's placeholder.
    public static let reasonPlaceholder = "Reason (optional)"

    /// The alert to create for a call of `toolName` with `input`.
    ///
    /// - Parameters:
    ///   - toolName: the tool asking (`Bash`).
    ///   - input: its input, shown pretty-printed.
    ///   - context: lines put after a blank line below the input (`Session: …`), kept whole: the input is cut first.
    ///   - timeout: seconds until the alert expires (which denies), `nil` for never.
    public static func draft(
        toolName: String, input: JSONValue, context: [String] = [], timeout: Double? = nil
    ) -> AlertDraftInput {
        var draft = AlertDraftInput(
            title: title(toolName: toolName),
            message: message(input: input, context: context),
            buttons: [.init(title: "Deny", style: "cancel"), .init(title: "Allow")],
            fields: [.init(placeholder: reasonPlaceholder)],
            timeout: timeout
        )
        draft.tool = cut(toolName, to: 256)
        draft.toolInput = toolInputTexts(input)
        return draft
    }

    /// The input's top-level members as alertd's `toolInput` keeps them: a string as it is, anything else as compact
    /// JSON; within alertd's limits (the first 64 members by name, each value cut to 4096 characters, names to
    /// 256). An input that is no object has no members.
    public static func toolInputTexts(_ input: JSONValue) -> [String: String] {
        guard case .object(let object) = input else { return [:] }
        var texts: [String: String] = [:]
        for member in object.members.sorted(by: { $0.key < $1.key }).prefix(64) where !member.key.isEmpty {
            let text = member.value.stringValue ?? String(decoding: JSONWriter.encode(member.value), as: UTF8.self)
            texts[cut(member.key, to: 256)] = cut(text, to: 4096)
        }
        return texts
    }

    /// `Allow <tool>?`, the tool's name cut to fit alertd's title limit.
    public static func title(toolName: String) -> String {
        "Allow \(cut(toolName, to: titleLimit - "Allow ?".count))?"
    }

    /// The input pretty-printed, cut to leave room for `context` (each context line is cut to 512 characters).
    public static func message(input: JSONValue, context: [String]) -> String {
        let tail = context.isEmpty ? "" : "\n\n" + context.map { cut($0, to: 512) }.joined(separator: "\n")
        let body = PrettyJSON.render(input)
        let budget = messageLimit - tail.count
        guard body.count > budget else { return body + tail }
        // The cut line's length depends on N: reserve it for the largest N, the whole body.
        let reserve = "\n… (cut, \(body.utf8.count) more bytes)".count
        let kept = String(body.prefix(max(0, budget - reserve)))
        let cutBytes = body.utf8.count - kept.utf8.count
        return kept + "\n… (cut, \(cutBytes) more bytes)" + tail
    }

    /// What a resolved approval alert decides.
    public enum Decision: Sendable, Equatable {
        case allow(reason: String)
        case deny(message: String)
        /// Nobody decided: it expired (`expired`) or was withdrawn (`dismissed`).
        case undecided(message: String, resolution: String)
    }

    /// The decision a Result makes: `Allow` answered allows; `Deny` answered denies with
    /// `Denied by <responder>: <reason>`; an expiry or a dismissal decides nothing and says which.
    public static func decision(_ outcome: AlertOutcome) -> Decision {
        let who = outcome.responder ?? "an unnamed responder"
        let reason = (outcome.values.first ?? nil).map(trimmed) ?? ""
        switch outcome.resolution {
        case "answered" where outcome.buttonIndex == 1:
            return .allow(reason: reason.isEmpty ? "Allowed by \(who)" : "Allowed by \(who): \(reason)")
        case "answered":
            return .deny(message: reason.isEmpty ? "Denied by \(who)" : "Denied by \(who): \(reason)")
        case "expired":
            return .undecided(message: "Denied: the approval request expired unanswered", resolution: "expired")
        default:
            let by = outcome.responder.map { " by \($0)" } ?? ""
            return .undecided(
                message: "Denied: the approval request was dismissed\(by)", resolution: outcome.resolution
            )
        }
    }

    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }

    private static func cut(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

/// JSON for people: 2-space indent, object keys sorted (by their UTF-8 bytes), one member or element a line.
public enum PrettyJSON {
    public static func render(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            let inner = indent + "  "
            for (index, element) in elements.enumerated() {
                out += inner
                write(element, indent: inner, into: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            let inner = indent + "  "
            let members = object.members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            for (index, member) in members.enumerated() {
                out += inner + scalar(.string(member.key)) + ": "
                write(member.value, indent: inner, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            out += scalar(value)
        }
    }

    private static func scalar(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.encode(value), as: UTF8.self)
    }
}
