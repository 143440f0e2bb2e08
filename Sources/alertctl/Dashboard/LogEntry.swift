import AlertClient

/// One line of the log pane: an alert that resolved, and which button (the seeds' `debugLabel`).
/// Built from the alert and its Result, leaving secure values out.
struct LogEntry: Sendable, Equatable {
    /// The alert's id: an alert resolves once, so it has one line.
    var alertID: String
    /// Local time of the resolution, `HH:MM:SS`.
    var time: String
    var title: String
    /// The chosen button's title.
    var button: String
    /// Whether it was destructive (drawn in red) or cancel (dim).
    var buttonStyle: String
    /// Typed values of the non-secure fields, or how it resolved when it was not answered here.
    var note: String

    /// - Parameters:
    ///   - alert: The alert (for its title and which fields are secure).
    ///   - result: How it resolved.
    ///   - elsewhere: Whether someone else resolved it (another dashboard, curl, its producer, a timeout).
    ///     The note names who did when the server records it (`responder`: a token's name).
    init(alert: RemoteAlert, result: RemoteResult, elsewhere: Bool) {
        alertID = alert.id
        time = ClockTime.local(fromRFC3339: result.resolvedAt)
        title = alert.displayTitle
        button = result.buttonTitle
        buttonStyle = alert.buttons.first { $0.index == result.buttonIndex }?.style ?? "default"
        var notes: [String] = []
        if let how = Self.how(result, elsewhere: elsewhere) { notes.append(how) }
        for field in alert.fields where !field.secure && result.values.indices.contains(field.index) {
            guard let value = result.values[field.index] else { continue }
            let label = field.placeholder.isEmpty ? "field \(field.index + 1)" : field.placeholder
            notes.append("\(label): \(value)")
        }
        note = notes.joined(separator: ", ")
    }

    /// How and by whom it resolved: "answered by alice", "dismissed by ci", "expired", "answered elsewhere";
    /// `nil` for an answer given here on a server without tokens (nothing to add).
    static func how(_ result: RemoteResult, elsewhere: Bool) -> String? {
        let by = result.responder.map { " by \($0)" }
        switch result.resolution {
        case "dismissed": return "dismissed" + (by ?? " by its producer")
        case "expired": return "expired"
        default:
            if let by { return "answered" + by }
            return elsewhere ? "answered elsewhere" : nil
        }
    }
}

extension RemoteAlert {
    /// The title, or the message when the title is empty.
    var displayTitle: String {
        title.isEmpty ? message : title
    }
}
