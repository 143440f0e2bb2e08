import AlertCore
import Foundation
@testable import AlertAPI
import JSON

/// A broken invariant is a finding like a crash: report it and trap, so libFuzzer saves the input.
func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
            file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    fatalError("invariant broken: \(message())", file: file, line: line)
}

/// Parses what alertd wrote; anything it writes must be JSON that its own parser reads back.
func parseBack(_ bytes: [UInt8], _ what: String) -> JSONValue {
    expect(String(validating: bytes, as: UTF8.self) != nil, "\(what) is not valid UTF-8")
    do {
        return try JSONParser.parse(bytes, maxDepth: 64)
    } catch {
        let text = String(decoding: bytes, as: UTF8.self)
        fatalError("invariant broken: \(what) does not parse back (\(error)): \(text)")
    }
}

/// A parsed body: accepted only when valid UTF-8, and `write(parse(x))` parses to the same value and
/// writes the same bytes again.
func checkRoundTrip(_ value: JSONValue, input: [UInt8]) {
    expect(String(validating: input, as: UTF8.self) != nil, "the parser accepted invalid UTF-8")
    let written = JSONWriter.encode(value)
    let reparsed = parseBack(written, "the writer's output for a parsed body")
    expect(reparsed == value, "write then parse changed the value: \(value) became \(reparsed)")
    expect(JSONWriter.encode(reparsed) == written, "writing the value twice gave different bytes")
}

/// A problem has one of the expected statuses, and its problem+json is JSON that says the same.
func checkProblem(_ problem: Problem, statuses: Set<Int>, _ context: String) {
    expect(statuses.contains(problem.status), "\(context): status \(problem.status), expected \(statuses.sorted())")
    let response = problem.response
    expect(response.status == problem.status, "\(context): response status differs from the problem's")
    expect(response.headers["content-type"] == "application/problem+json", "\(context): content type")
    let json = parseBack(response.body, "\(context) problem+json").objectValue
    expect(json?["status"]?.int64Value == Int64(problem.status), "\(context): status member")
    expect(json?["type"]?.stringValue == problem.type, "\(context): type member")
    expect(json?["detail"]?.stringValue == problem.detail, "\(context): detail member")
    let errors = json?["errors"]?.arrayValue ?? []
    expect(errors.count == problem.errors.count, "\(context): errors member")
    for item in problem.errors {
        if case .pointer(let pointer) = item.location {
            expect(referenceTokens(pointer) != nil, "\(context): '\(pointer)' is not an RFC 6901 JSON pointer")
        }
    }
}

/// A body's 422 points into the body: each pointer's parent is in it, and an unknown member is in it itself.
func checkPointers(_ problem: Problem, in body: JSONValue, _ context: String) {
    for item in problem.errors {
        guard case .pointer(let pointer) = item.location, let tokens = referenceTokens(pointer) else { continue }
        let unknown = item.detail.hasPrefix("unknown member")
        var value = body
        for (position, token) in tokens.enumerated() {
            let child: JSONValue? = switch value {
            case .object(let object): object[token]
            case .array(let array): Int(token).flatMap { array.indices.contains($0) ? array[$0] : nil }
            default: nil
            }
            guard let child else {
                expect(position == tokens.count - 1 && !unknown, "\(context): '\(pointer)' is not in the body")
                break
            }
            value = child
        }
    }
}

/// RFC 6901: the reference tokens of `pointer` (none for "", the whole document), or nil when it is malformed.
/// Byte-wise: a JSON pointer is a sequence of code points, whatever graphemes they make.
func referenceTokens(_ pointer: String) -> [String]? {
    let slash = UInt8(ascii: "/"), tilde = UInt8(ascii: "~")
    let bytes = Array(pointer.utf8)
    guard let first = bytes.first else { return [] }
    guard first == slash else { return nil }
    var tokens: [String] = []
    for raw in bytes.dropFirst().split(separator: slash, omittingEmptySubsequences: false) {
        var token: [UInt8] = []
        var index = raw.startIndex
        while index < raw.endIndex {
            guard raw[index] == tilde else {
                token.append(raw[index])
                index += 1
                continue
            }
            guard index + 1 < raw.endIndex, raw[index + 1] == UInt8(ascii: "0") || raw[index + 1] == UInt8(ascii: "1")
            else { return nil }
            token.append(raw[index + 1] == UInt8(ascii: "0") ? tilde : slash)
            index += 2
        }
        tokens.append(String(decoding: token, as: UTF8.self))
    }
    return tokens
}

/// The alert as written (in the contract's member order) parses back and says what the alert says.
func checkWritten(_ alert: Alert, redactingSecrets: Bool) {
    var writer = JSONWriter()
    writer.write(alert, redactingSecrets: redactingSecrets)
    let what = redactingSecrets ? "a listed alert" : "an alert"
    // The event stream sends an alert as one `data:` line: the JSON must not break lines.
    expect(!writer.bytes.contains(10) && !writer.bytes.contains(13), "\(what) holds a line break")
    guard let json = parseBack(writer.bytes, what).objectValue else {
        fatalError("invariant broken: \(what) is not a JSON object")
    }
    expect(json["id"]?.stringValue == alert.id.rawValue, "\(what): id")
    expect(json["title"]?.stringValue == alert.title, "\(what): title")
    expect(json["message"]?.stringValue == alert.message, "\(what): message")
    expect(json["style"]?.stringValue == alert.style.rawValue, "\(what): style")
    expect(json["tag"]?.int64Value == alert.tag, "\(what): tag")
    expect(json["presenter"]?.stringValue == alert.presenter, "\(what): presenter")
    expect(json["animated"]?.boolValue == alert.animated, "\(what): animated")
    expect(json["state"]?.stringValue == alert.state.rawValue, "\(what): state")
    let buttons = json["buttons"]?.arrayValue ?? []
    expect(buttons.count == alert.buttons.count, "\(what): button count")
    for (button, written) in zip(alert.buttons, buttons) {
        let object = written.objectValue
        expect(object?["index"]?.int64Value == Int64(button.index), "\(what): button index")
        expect(object?["title"]?.stringValue == button.title, "\(what): button title")
        expect(object?["style"]?.stringValue == button.style.rawValue, "\(what): button style")
    }
    let fields = json["fields"]?.arrayValue ?? []
    expect(fields.count == alert.fields.count, "\(what): field count")
    for (field, written) in zip(alert.fields, fields) {
        let object = written.objectValue
        let text = object?["text"]
        if redactingSecrets && field.secure {
            expect(text?.isNull == true, "\(what): a secure field's text is not null")
        } else {
            expect(text?.stringValue == field.text, "\(what): field text")
        }
        expect(object?["placeholder"]?.stringValue == field.placeholder, "\(what): placeholder")
        expect(object?["keyboard"]?.stringValue == field.keyboard.name, "\(what): keyboard")
    }
    checkTime(json["createdAt"], alert.createdAt, "\(what): createdAt")
    if let expiresAt = alert.expiresAt {
        checkTime(json["expiresAt"], expiresAt, "\(what): expiresAt")
    } else {
        expect(json["expiresAt"]?.isNull == true, "\(what): expiresAt is not null")
    }
    if let result = alert.result {
        checkWritten(result, json["result"], secureFields: redactingSecrets ? alert.fields : nil, what)
    } else {
        expect(json["result"]?.isNull == true, "\(what): result is not null while pending")
    }
}

/// A written Result says what the result says, secure values `null` when `secureFields` is given.
func checkWritten(_ result: AlertResult, _ written: JSONValue?, secureFields: [AlertField]?, _ what: String) {
    let object = written?.objectValue
    expect(object?["buttonIndex"]?.int64Value == Int64(result.buttonIndex), "\(what): result buttonIndex")
    expect(object?["buttonTitle"]?.stringValue == result.buttonTitle, "\(what): result buttonTitle")
    expect(object?["ok"]?.boolValue == result.ok, "\(what): result ok")
    expect(object?["resolution"]?.stringValue == result.resolution.rawValue, "\(what): resolution")
    let values = object?["values"]?.arrayValue ?? []
    expect(values.count == result.values.count, "\(what): value count")
    for (index, (value, written)) in zip(result.values, values).enumerated() {
        if let secureFields, index < secureFields.count, secureFields[index].secure {
            expect(written.isNull, "\(what): a secure value is not null")
        } else {
            expect(written.stringValue == value, "\(what): value \(index)")
        }
    }
    checkTime(object?["resolvedAt"], result.resolvedAt, "\(what): resolvedAt")
}

/// The RFC 3339 time of `date`, as alertd writes every time: UTC, rounded to the millisecond.
func checkTime(_ written: JSONValue?, _ date: Date, _ what: String) {
    guard let text = written?.stringValue else {
        fatalError("invariant broken: \(what) is not a string: \(String(describing: written))")
    }
    expect(text == RFC3339.format(date), "\(what): \(text) is not \(date)")
}
