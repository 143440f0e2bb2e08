import AlertCore
import AlertModel
import JSON

extension AnswerDraft {
    /// Reads an answer body: `{"buttonIndex": 1}` or `{"button": "OK"}`, with optional `values`.
    /// - Parameters:
    ///   - json: the parsed body.
    ///   - others: more members the body may hold, read by the caller (`ids` of a batch answer).
    /// - Throws: a 422 `Problem` naming every bad member.
    init(json: JSONValue, besides others: [String] = []) throws(Problem) {
        var reader = BodyReader()
        var choice: ButtonChoice?
        var values: [String]?
        if let body = reader.object(json, at: "", allowed: ["buttonIndex", "button", "values"] + others) {
            let index = reader.int64(body["buttonIndex"], at: "/buttonIndex")
            let title = reader.string(body["button"], at: "/button")
            switch (index, title) {
            case (let index?, nil):
                if index < 0 { reader.fail("/buttonIndex", "'buttonIndex' must be 0 or more; got \(index)") }
                choice = .index(Int(clamping: index))
            case (nil, let title?):
                choice = .title(title)
            case (.some, .some):
                reader.fail("", "give either 'buttonIndex' or 'button', not both")
            case (nil, nil) where reader.issues.isEmpty:
                reader.fail("", "say which button was chosen: 'buttonIndex' (a number) or 'button' (a title)")
            case (nil, nil):
                break
            }
            if let items = reader.array(body["values"], at: "/values") {
                values = items.enumerated().compactMap { reader.item($1, at: "/values/\($0)") }
            }
        }
        guard reader.issues.isEmpty, let choice else { throw .validation(reader.issues) }
        self.init(choice: choice, values: values)
    }
}
