// The libFuzzer target over what turns an untrusted request into store calls (scripts/fuzz.sh builds it;
// `make fuzz` runs it; docs/FUZZING.md).
//
// Input format: one input is an HTTP request in miniature, so that one input reaches every surface and
// the seeds in Fuzz/corpus read like requests:
//
//     /v1/alerts/abc/response?wait=5&state=all        request target: path, then the query after `?`
//     Idempotency-Key: deploy-42                      header lines `Name: value`, up to an empty line
//                                                     (CR before LF is dropped everywhere)
//     {"title":"Login","buttons":["Cancel","OK"]}     the create body, up to a line `---`
//     ---
//     {"button":"OK","values":[]}                     the answer body: the rest
//
// Every part may be missing (then it is empty). Per input, in the order alertd works:
//
//  1. `APIHandler.route(for:)` on the path (percent-decoded as libmicrohttpd does) and its invariants.
//  2. `QueryParameters` over an `HTTPRequest` holding the query (split and decoded as libmicrohttpd does):
//     every accessor the handler uses; values in range, or a 400 problem naming the parameter.
//  3. The headers the handler reads: `X-Request-Id`, `Idempotency-Key`, `Last-Event-ID`.
//  4. `JSONParser.parse` of the create body; a parsed body must be valid UTF-8 and round-trip through
//     `JSONWriter`. Then `AlertDraft(json:webhooks:)` (or its 422) and `normalized(limits:)`, the rules the
//     store applies on create, checked against the contract (cancel first, destructive, limits, ...).
//  5. The same parse for the answer body, then `AnswerDraft(json:)`.
//  6. For a valid draft, the run's one `AlertStore` (as alertd has one): create (twice more with an
//     Idempotency-Key: the replay and a changed draft), answer, dismiss, read back; each outcome checked
//     against the draft and the answer, and every alert, Result and problem written as JSON must parse back
//     and say the same.
//
// Crashes, sanitizer reports and broken invariants (`expect`, which traps) are all findings.

import AlertCore
import Foundation
import MicroHTTP
@testable import AlertAPI
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func alertFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(UnsafeBufferPointer(start: data, count: size))
    checkRoute(input.path)
    let request = HTTPRequest(method: "POST", path: input.path, query: input.query, headers: input.headers,
                              body: input.createBody)
    checkQuery(request)
    let idempotencyKey = checkHeaders(request)
    let draft = decodeDraft(input.createBody)
    let answer = decodeAnswer(input.answerBody)
    let normalized = draft.flatMap(checkRules)
    if let draft, let normalized {
        runStore(draft, normalized, answer: answer, idempotencyKey: idempotencyKey)
    }
    if tracing {
        print("route \(APIHandler.routeLabel(input.path)), \(input.query.count) query items, "
              + "draft \(draft == nil ? "refused" : normalized == nil ? "broke the rules" : "stored"), "
              + "answer \(answer == nil ? "refused" : "decoded")")
    }
    return 0
}

/// `ALERTD_FUZZ_TRACE=1` prints how far each input got (for seeds and crashers run one at a time).
let tracing = getenv("ALERTD_FUZZ_TRACE") != nil

/// A path names at most one resource; an id is never empty and never holds `/`, and names itself again.
func checkRoute(_ path: String) {
    guard let (route, id) = APIHandler.route(for: path) else {
        checkProblem(Problem.unknownPath(path), statuses: [404], "unknown path")
        return
    }
    let template = route.template.text
    expect(!route.endpoints.isEmpty && !route.allow.isEmpty, "methods of \(template)")
    expect(APIHandler.routes.filter { $0.template.match(path) != nil }.count == 1, "one route for '\(path)'")
    guard template.contains("{id}") else {
        expect(path == template && id.rawValue.isEmpty, "'\(path)' routed to \(template)")
        return
    }
    expect(!id.rawValue.isEmpty && !id.rawValue.contains("/"), "id '\(id.rawValue)' from '\(path)'")
    for other in ["/v1/alerts/{id}", "/v1/alerts/{id}/response"] {
        let again = APIHandler.route(for: other.replacingOccurrences(of: "{id}", with: id.rawValue))
        expect(again?.route.template.text == other && again?.id == id, "\(other) of '\(id.rawValue)'")
    }
}

/// Every query accessor the handler uses: a value in range, or a 400 naming the parameter.
func checkQuery(_ request: HTTPRequest) {
    let query = QueryParameters(request: request)
    func check<T>(_ name: String, _ read: () throws(Problem) -> T, _ valid: (T) -> Bool) {
        do {
            let value = try read()
            expect(valid(value), "query \(name): \(value) out of range")
        } catch {
            checkProblem(error, statuses: [400], "query \(name)")
            expect(error.errors.first?.location == .parameter(name), "query \(name): problem names the parameter")
            expect(request.queryValue(name) != nil, "query \(name): a problem without the parameter")
        }
    }
    check("wait", query.wait) { $0 >= .zero && $0 <= .seconds(QueryParameters.maxWait) }
    check("limit", { () throws(Problem) in try query.integer("limit", in: 1...1000) }) {
        $0.map { (1...1000).contains($0) } ?? true
    }
    check("index", query.index) { _ in true }
    check("since", { () throws(Problem) in try query.uint64("since") }) { _ in true }
    check("type", query.eventKinds) { _ in true }
    check("state", query.state) { _ in true }
    check("presenter", query.presenter) { $0.map { AlertDraft.isValidPresenter($0) } ?? true }
}

/// The headers the handler reads; returns a valid `Idempotency-Key`.
func checkHeaders(_ request: HTTPRequest) -> String? {
    let id = APIHandler.requestID(request.headers["x-request-id"])
    expect((1...64).contains(id.utf8.count) && id.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 34 && $0 != 92 }),
           "request id '\(id)'")
    do {
        _ = try APIHandler.lastEventID(request)
    } catch {
        checkProblem(error, statuses: [400], "Last-Event-ID")
    }
    do {
        return try APIHandler.idempotencyKey(request)
    } catch {
        checkProblem(error, statuses: [400], "Idempotency-Key")
        return nil
    }
}

/// Parses a body as the handler does: the value, or nil after checking the 400.
func parseBody(_ body: [UInt8], _ what: String) -> JSONValue? {
    do {
        let value = try JSONParser.parse(body)
        checkRoundTrip(value, input: body)
        return value
    } catch {
        expect(error.offset >= 0 && error.offset <= body.count, "\(what): error offset \(error.offset)")
        let problem = Problem.malformedJSON("the body is not valid JSON: \(error.reason) (at byte \(error.offset))")
        checkProblem(problem, statuses: [400], "\(what) malformed JSON")
        return nil
    }
}

func decodeDraft(_ body: [UInt8]) -> AlertDraft? {
    guard let json = parseBody(body, "create body") else { return nil }
    do {
        return try AlertDraft(json: json, webhooks: .loopback)
    } catch {
        checkProblem(error, statuses: [422], "create body")
        checkPointers(error, in: json, "create body")
        expect(!error.errors.isEmpty, "a 422 for a create body names no member")
        return nil
    }
}

func decodeAnswer(_ body: [UInt8]) -> AnswerDraft? {
    guard let json = parseBody(body, "answer body") else { return nil }
    do {
        return try AnswerDraft(json: json)
    } catch {
        checkProblem(error, statuses: [422], "answer body")
        checkPointers(error, in: json, "answer body")
        expect(!error.errors.isEmpty, "a 422 for an answer body names no member")
        return nil
    }
}
