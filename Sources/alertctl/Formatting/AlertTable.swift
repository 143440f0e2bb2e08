import AlertClient
import Foundation

/// The table `alertctl list` prints.
enum AlertTable {
    /// Longest title/message shown before it is cut with "…".
    static let textWidth = 48

    /// Renders `alerts` as aligned columns with a header; control characters in a cell are escaped (`VisibleText`).
    /// - Parameters:
    ///   - alerts: Alerts, in the order to show.
    ///   - now: The time ages are counted to.
    static func render(_ alerts: [RemoteAlert], now: Date) -> String {
        let showResult = alerts.contains { !$0.isPending }
        var rows = [["AGE", "ID", "PRESENTER", "TITLE", "BUTTONS"] + (showResult ? ["RESULT"] : [])]
        for alert in alerts {
            var row = [
                Age.text(since: alert.createdAt, now: now), alert.id, alert.presenter,
                truncate(headline(alert), to: textWidth), buttons(alert),
            ]
            if showResult { row.append(alert.result.map(resultText) ?? "pending") }
            rows.append(row.map(VisibleText.escaped))
        }
        return align(rows)
    }

    /// The title, or the message when there is no title, on one line.
    static func headline(_ alert: RemoteAlert) -> String {
        let text = alert.title.isEmpty ? alert.message : alert.title
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Button titles in order, " | " between them, a trailing "!" on destructive ones.
    static func buttons(_ alert: RemoteAlert) -> String {
        alert.buttons.map { $0.title + ($0.isDestructive ? "!" : "") }.joined(separator: " | ")
    }

    /// "answered: Deploy", "dismissed: Cancel", …
    static func resultText(_ result: RemoteResult) -> String {
        "\(result.resolution): \(result.buttonTitle)"
    }

    /// `text` cut to `width` characters with a trailing "…".
    static func truncate(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    /// Pads each column to its widest cell (the last column is not padded).
    static func align(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
