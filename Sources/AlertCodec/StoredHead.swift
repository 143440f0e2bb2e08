import AlertCore
import JSON

/// The members an alert and its draft share (title, message, style, tag, presenter, animated), as stored.
struct StoredHead {
    var title: String
    var message: String
    var style: AlertStyle
    var tag: Int64
    var presenter: String
    var animated: Bool
}

extension StoredHead {
    /// The members of a stored alert or draft.
    init(_ object: JSONObject) throws(StoredValueError) {
        self.init(title: try object.string("title"), message: try object.string("message"),
                  style: try object.value("style", as: AlertStyle.self), tag: try object.int64("tag"),
                  presenter: try object.string("presenter"), animated: try object.bool("animated"))
    }

    /// Writes the members, as given.
    func write(to writer: inout JSONWriter) {
        writer.member("title")
        writer.write(title)
        writer.member("message")
        writer.write(message)
        writer.member("style")
        writer.write(style.rawValue)
        writer.member("tag")
        writer.write(tag)
        writer.member("presenter")
        writer.write(presenter)
        writer.member("animated")
        writer.write(animated)
    }
}
