import AlertCore
import Foundation
import MicroHTTP

/// The HTML of the responder's page: server-rendered, no script, every producer string escaped (`escape`).
enum PageHTML {
    /// Text for an element's content or a quoted attribute value: `& < > " '` become character references, so no
    /// producer string can close an element or an attribute, or open one.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\0": out += "\u{FFFD}"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A whole document: `title` (escaped here), `main` (HTML already escaped), and the sign-out form when signed in.
    static func document(title: String, main: String, signOut csrf: String? = nil, refresh: String? = nil) -> String {
        var head = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="same-origin">
            <title>\(escape(title)) · alertd</title>
            <link rel="stylesheet" href="/app/app.css">
            """
        if let refresh { head += "\n<meta http-equiv=\"refresh\" content=\"0; url=\(escape(refresh))\">" }
        var header = "<header><a class=\"home\" href=\"/app\">alertd</a>"
        if let csrf {
            header += """
                <form method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="\(escape(csrf))">\
                <button type="submit" class="link">Sign out</button></form>
                """
        }
        header += "</header>"
        return head + "\n</head><body>\n" + header + "\n<main id=\"main\">\n" + main + "\n</main></body></html>\n"
    }

    /// The sign-in form; `error` says why the last try failed.
    static func signIn(csrf: String, error: String?) -> String {
        let alert = error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>\n" } ?? ""
        return document(title: "Sign in", main: """
            <h1>Sign in</h1>
            \(alert)<form method="post" action="/app/sign-in" class="stack">
            <input type="hidden" name="csrf" value="\(escape(csrf))">
            <label for="token">Access token</label>
            <input id="token" name="token" type="password" autocomplete="current-password" required autofocus \
            spellcheck="false" autocapitalize="off">
            <button type="submit" class="primary">Sign in</button>
            </form>
            <p class="hint">A responder's token from alertd's tokens file. The page keeps you signed in for \
            \(Int(PageAccess.sessionLifetime / 3600)) hours.</p>
            """)
    }

    /// The pending alerts, grouped by presenter (groups in the order of their oldest alert), oldest first.
    static func list(_ alerts: [Alert], more: Bool, signedInAs name: String?, csrf: String, now: Date) -> String {
        var groups: [(presenter: String, alerts: [Alert])] = []
        var position: [String: Int] = [:]
        for alert in alerts {
            if let index = position[alert.presenter] {
                groups[index].alerts.append(alert)
            } else {
                position[alert.presenter] = groups.count
                groups.append((alert.presenter, [alert]))
            }
        }
        var main = "<h1>Pending alerts</h1>\n"
        if let name { main += "<p class=\"hint\">Signed in as <strong>\(escape(name))</strong>.</p>\n" }
        if groups.isEmpty { main += "<p class=\"empty\">Nothing is waiting for an answer.</p>\n" }
        for group in groups {
            main += "<section aria-label=\"presenter \(escape(group.presenter))\">"
                + "<h2>\(escape(group.presenter)) <span class=\"count\">\(group.alerts.count)</span></h2>\n<ul class=\"alerts\">\n"
            for alert in group.alerts {
                let message = alert.message.isEmpty ? "" : "<span class=\"message\">\(escape(alert.message))</span>"
                main += "<li><a href=\"/app/alerts/\(escape(alert.id.rawValue))\"><span class=\"title\">"
                    + "\(escape(alert.title.isEmpty ? "(no title)" : alert.title))</span>\(message)"
                    + "<span class=\"meta\">\(age(of: alert, now: now))\(kind(of: alert))</span></a></li>\n"
            }
            main += "</ul></section>\n"
        }
        if more { main += "<p class=\"hint\">More alerts are pending: answer these first.</p>\n" }
        main += "<p><a href=\"/app\">Refresh</a></p>"
        return document(title: "Pending alerts", main: main, signOut: name == nil ? nil : csrf)
    }

    private static func age(of alert: Alert, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(alert.createdAt)))
        let text = seconds < 60 ? "\(seconds) s" : seconds < 3600 ? "\(seconds / 60) min" : "\(seconds / 3600) h"
        return "posted \(text) ago"
    }

    private static func kind(of alert: Alert) -> String {
        var parts: [String] = []
        if alert.style == .actionSheet { parts.append("action sheet") }
        if !alert.fields.isEmpty { parts.append("\(alert.fields.count) field\(alert.fields.count == 1 ? "" : "s")") }
        parts.append("\(alert.buttons.count) button\(alert.buttons.count == 1 ? "" : "s")")
        if let expires = alert.expiresAt { parts.append("expires \(RFC3339.format(expires))") }
        return " · " + parts.joined(separator: " · ")
    }

    /// One pending alert as a form. `values` refills the non-secure fields after a refused answer; a secure field is
    /// always empty (its value is never rendered back). `errors` says what the store refused.
    static func alert(_ alert: Alert, csrf: String, values: [String]? = nil, errors: [String] = [],
                      signOut: Bool = true) -> String {
        var main = "<article class=\"alert \(alert.style == .actionSheet ? "sheet" : "modal")\" aria-labelledby=\"t\">\n"
        main += "<h1 id=\"t\">\(escape(alert.title.isEmpty ? "(no title)" : alert.title))</h1>\n"
        if !alert.message.isEmpty { main += "<p class=\"message\">\(escape(alert.message))</p>\n" }
        main += "<p class=\"meta\">for \(escape(alert.presenter))\(alert.owner.map { " · from \(escape($0))" } ?? "")</p>\n"
        for error in errors { main += "<p class=\"error\" role=\"alert\">\(escape(error))</p>\n" }
        main += "<form method=\"post\" action=\"/app/alerts/\(escape(alert.id.rawValue))/response\">\n"
        main += "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(csrf))\">\n"
        let buttons = orderedButtons(alert)
        let preferred = defaultButton(alert)
        if !alert.fields.isEmpty, let preferred {
            // Enter in a field submits the form's first submit button: make it the default one, out of sight and of
            // the focus order, so Enter never chooses cancel just because cancel is left-most.
            main += "<button type=\"submit\" name=\"button\" value=\"\(preferred.index)\" class=\"implicit\" "
                + "tabindex=\"-1\" aria-hidden=\"true\">\(escape(preferred.title))</button>\n"
        }
        for field in alert.fields {
            let label = field.placeholder.isEmpty ? "Field \(field.index + 1)" : field.placeholder
            let value = field.secure ? "" : (values?[safe: field.index] ?? field.text)
            main += "<label for=\"f\(field.index)\">\(escape(label))</label>\n"
            main += "<input id=\"f\(field.index)\" name=\"v\(field.index)\" \(inputAttributes(field))"
            if !value.isEmpty { main += " value=\"\(escape(value))\"" }
            if field.index == 0 { main += " autofocus" }
            main += ">\n"
        }
        main += "<div class=\"buttons\(alert.style == .actionSheet || alert.buttons.count > 2 ? " stacked" : "")\">\n"
        for button in buttons {
            var classes = [button.style.rawValue]
            if button.index == preferred?.index { classes.append("primary") }
            main += "<button type=\"submit\" name=\"button\" value=\"\(button.index)\" class=\"\(classes.joined(separator: " "))\""
            if button.style == .cancel { main += " formnovalidate" }
            if alert.fields.isEmpty, button.index == preferred?.index { main += " autofocus" }
            main += ">\(escape(button.title))"
            if button.style == .destructive { main += "<span class=\"visually-hidden\"> (destructive)</span>" }
            main += "</button>\n"
        }
        main += "</div>\n</form>\n</article>"
        return document(title: alert.title.isEmpty ? "Alert" : alert.title, main: main, signOut: signOut ? csrf : nil)
    }

    /// The buttons in UIKit's order: an alert's in a row with cancel left-most; an action sheet's top to bottom with
    /// cancel last.
    static func orderedButtons(_ alert: Alert) -> [AlertButton] {
        guard alert.style == .actionSheet || alert.buttons.count > 2 else { return alert.buttons }
        return alert.buttons.filter { $0.style != .cancel } + alert.buttons.filter { $0.style == .cancel }
    }

    /// The dashboard's default button: the first (as shown) that is neither cancel nor destructive; else cancel.
    static func defaultButton(_ alert: Alert) -> AlertButton? {
        orderedButtons(alert).first { $0.style == .default } ?? alert.cancelButton
    }

    /// `type`, `inputmode` and the hints the field's keyboard implies; secure fields are passwords whatever their
    /// keyboard, keeping its `inputmode`.
    static func inputAttributes(_ field: AlertField) -> String {
        let (type, mode): (String, String?) = switch field.keyboard {
        case .URL: ("url", "url")
        case .emailAddress: ("email", "email")
        case .numberPad, .asciiCapableNumberPad: ("text", "numeric")
        case .decimalPad: ("text", "decimal")
        case .phonePad, .namePhonePad: ("tel", "tel")
        case .webSearch: ("search", "search")
        case .default, .asciiCapable, .numbersAndPunctuation, .twitter: ("text", nil)
        }
        var attributes = "type=\"\(field.secure ? "password" : type)\""
        if let mode { attributes += " inputmode=\"\(mode)\"" }
        if field.keyboard == .numberPad || field.keyboard == .asciiCapableNumberPad { attributes += " pattern=\"[0-9]*\"" }
        attributes += field.secure ? " autocomplete=\"off\"" : " autocomplete=\"off\" autocapitalize=\"off\""
        attributes += " spellcheck=\"false\""
        return attributes
    }

    /// After an answer, or for an alert no longer pending: who resolved it and how.
    static func resolved(_ alert: Alert, byMe: Bool, csrf: String?) -> String {
        let result = alert.result
        let title = escape(alert.title.isEmpty ? "(no title)" : alert.title)
        var main: String
        if byMe, let result {
            main = "<h1>Answered</h1>\n<p class=\"done\" role=\"status\">You answered <strong>\(title)</strong>: "
                + "<strong>\(escape(result.buttonTitle))</strong>.</p>\n"
        } else if let result {
            let how: String = switch result.resolution {
            case .answered: "answered elsewhere" + (result.responder.map { ", by \(escape($0))" } ?? "")
            case .dismissed: "withdrawn" + (result.responder.map { " by \(escape($0))" } ?? "")
            case .expired: "expired"
            }
            main = "<h1>Already resolved</h1>\n<p class=\"elsewhere\" role=\"status\"><strong>\(title)</strong> was "
                + "\(how): <strong>\(escape(result.buttonTitle))</strong>.</p>\n"
        } else {
            main = "<h1>\(title)</h1>"
        }
        main += "<p><a href=\"/app\">Back to pending alerts</a></p>"
        return document(title: byMe ? "Answered" : "Already resolved", main: main, signOut: csrf)
    }

    /// A page that says why a request was refused.
    static func refusal(_ heading: String, _ detail: String, signIn: Bool = false) -> String {
        document(title: heading, main: "<h1>\(escape(heading))</h1>\n<p>\(escape(detail))</p>\n"
            + (signIn ? "<p><a href=\"/app\">Sign in</a></p>" : "<p><a href=\"/app\">Pending alerts</a></p>"))
    }

    /// A single-alert link's page: one button that uses the link (once) and opens the alert.
    static func openLink(_ token: String, csrf: String) -> String {
        document(title: "Open the alert", main: """
            <h1>An alert is waiting for you</h1>
            <form method="post" action="/app/link" class="stack">
            <input type="hidden" name="csrf" value="\(escape(csrf))">
            <input type="hidden" name="l" value="\(escape(token))">
            <button type="submit" class="primary" autofocus>Open the alert</button>
            </form>
            <p class="hint">The link works once: it signs this browser in for this one alert, for 15 minutes.</p>
            """)
    }

    /// A page that moves on to `target` (a same-site navigation, so the `SameSite=Strict` cookie just set goes with
    /// it), with a link for a browser that does not follow the refresh.
    static func moveOn(to target: String, _ label: String) -> String {
        document(title: label, main: "<p><a href=\"\(escape(target))\">\(escape(label))</a></p>", refresh: target)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
