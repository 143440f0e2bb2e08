import AlertCodec
import AlertCore

/// The shared codec's JSON (`AlertCodec`) as the text libpq sends and receives.
extension Alert {
    var storedText: String { String(decoding: storedJSON, as: UTF8.self) }

    /// The alert of a row's text; a damaged one is a `PGError` that says so.
    static func decoding(_ text: String) throws(PGError) -> Alert {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(PGError) in try decoding(UnsafeRawBufferPointer(bytes)) }
        }.get()
    }

    /// The alert of a row's bytes (`PGRow`); a damaged one is a `PGError` that says so.
    static func decoding(_ bytes: UnsafeRawBufferPointer) throws(PGError) -> Alert {
        do {
            return try Alert(stored: bytes)
        } catch {
            throw PGError("a stored alert is damaged: \(error)")
        }
    }
}

extension AlertDraft {
    var storedText: String { String(decoding: storedJSON, as: UTF8.self) }
}

extension AnswerRule {
    var storedText: String { String(decoding: storedJSON, as: UTF8.self) }

    /// The rule of a row's text; a damaged one is a `PGError` that says so.
    static func decoding(_ text: String) throws(PGError) -> AnswerRule {
        var text = text
        do {
            return try text.withUTF8 { bytes throws(StoredValueError) in try AnswerRule(stored: UnsafeRawBufferPointer(bytes)) }
        } catch {
            throw PGError("a stored rule is damaged: \(error)")
        }
    }

    /// Every rule `alertd_rules` holds, oldest first (then by name): the order in which they answer.
    static func reading(_ connection: PGConnection) throws(PGError) -> [AnswerRule] {
        var rules: [AnswerRule] = []
        for row in try connection.execute("SELECT rule FROM alertd_rules") {
            if let text = row[0] { rules.append(try decoding(text)) }
        }
        return rules.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
    }
}

/// An event row holds no secure value: the alert's row (`alertd_alerts`) has them, for as long as the alert is kept,
/// and an instance reading events takes them from there. Events outlive their alert by up to 10,000 later events.
extension Alert {
    /// What an event row holds in place of a secure field's text or value. The API takes a NUL, even a lone one (a
    /// value typed as exactly this is restored as itself from the alert's row, so it comes out right).
    static let withheld = "\u{0}"

    /// Whether the alert has a secure text or value that is not empty (one to keep out of event rows).
    var hasSecureValues: Bool {
        fields.contains { field in
            guard field.secure else { return false }
            let value = result.flatMap { $0.values.indices.contains(field.index) ? $0.values[field.index] : nil }
            return !field.text.isEmpty || !(value ?? "").isEmpty
        }
    }

    /// The alert with every non-empty secure text and value `withheld`, for an event row.
    var withholdingSecureValues: Alert {
        var alert = self
        for field in fields where field.secure {
            if !field.text.isEmpty { alert.fields[field.index].text = Self.withheld }
            if let values = result?.values, values.indices.contains(field.index), !values[field.index].isEmpty {
                alert.result?.values[field.index] = Self.withheld
            }
        }
        return alert
    }

    /// Whether an event row's alert had secure values withheld.
    var withholdsSecureValues: Bool {
        fields.contains { $0.secure && $0.text == Self.withheld }
            || (result?.values.contains(Self.withheld) ?? false)
    }

    /// An event row's alert with the secure texts and values of `full`, the alert's row (fields do not change, and
    /// an alert resolves once, so its row has the event's result).
    func restoringSecureValues(from full: Alert) -> Alert {
        var alert = self
        for field in fields where field.secure && full.fields.indices.contains(field.index) {
            if field.text == Self.withheld { alert.fields[field.index].text = full.fields[field.index].text }
            if let values = result?.values, values.indices.contains(field.index), values[field.index] == Self.withheld,
               let kept = full.result?.values, kept.indices.contains(field.index) {
                alert.result?.values[field.index] = kept[field.index]
            }
        }
        return alert
    }
}
