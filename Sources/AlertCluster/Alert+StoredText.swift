import AlertCodec
import AlertCore

/// The shared codec's JSON (`AlertCodec`) as the text libpq sends and receives.
extension Alert {
    var storedText: String { String(decoding: storedJSON, as: UTF8.self) }

    /// The alert of a row's text; a damaged one is a `PGError` that says so.
    static func decoding(_ text: String) throws(PGError) -> Alert {
        do {
            return try Alert(stored: text)
        } catch {
            throw PGError("a stored alert is damaged: \(error)")
        }
    }
}

extension AlertDraft {
    var storedText: String { String(decoding: storedJSON, as: UTF8.self) }
}
