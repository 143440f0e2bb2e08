import AlertAPI
import Testing

/// The contract's rules, in order, as a producer sees them over HTTP: the normalized
/// buttons of a 201, or a 422 problem naming the member at fault.
@Suite("Creation rules and limits")
struct ButtonRulesTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var buttons: [String]
        var testDescription: String { name }
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var pointer: String
        var testDescription: String { name }
    }

    static func x(_ count: Int) -> String { String(repeating: "x", count: count) }

    static let accepted: [Accepted] = [
        Accepted(name: "a simple alert gets one OK button", body: #"{"message":"hi"}"#, buttons: ["OK:default"]),
        Accepted(name: "an empty buttons list is a simple alert", body: #"{"message":"hi","buttons":[]}"#,
                 buttons: ["OK:default"]),
        Accepted(name: "a single button stays default", body: #"{"message":"hi","buttons":["Go"]}"#,
                 buttons: ["Go:default"]),
        Accepted(name: "a single button may be marked cancel",
                 body: #"{"message":"hi","buttons":[{"title":"Dismiss","style":"cancel"}]}"#,
                 buttons: ["Dismiss:cancel"]),
        Accepted(name: "the left-most button becomes cancel", body: #"{"title":"t","buttons":["No","Yes","Maybe"]}"#,
                 buttons: ["No:cancel", "Yes:default", "Maybe:default"]),
        Accepted(name: "a cancel-marked button moves to index 0, others keep their order",
                 body: #"{"title":"t","buttons":["A","B",{"title":"C","style":"cancel"},"D"]}"#,
                 buttons: ["C:cancel", "A:default", "B:default", "D:default"]),
        Accepted(name: "a cancel-marked last button of two",
                 body: #"{"title":"t","buttons":[{"title":"Discard","style":"destructive"},{"title":"Keep","style":"cancel"}]}"#,
                 buttons: ["Keep:cancel", "Discard:destructive"]),
        Accepted(name: "destructive titles mark buttons",
                 body: #"{"title":"t","buttons":["Cancel","Delete","Keep"],"destructive":["Delete"]}"#,
                 buttons: ["Cancel:cancel", "Delete:destructive", "Keep:default"]),
        Accepted(name: "destructive follows a moved button",
                 body: #"{"title":"t","buttons":["Delete",{"title":"Cancel","style":"cancel"}],"destructive":["Delete"]}"#,
                 buttons: ["Cancel:cancel", "Delete:destructive"]),
        Accepted(name: "an action sheet without fields",
                 body: #"{"title":"t","style":"actionSheet","buttons":["Cancel","Share"]}"#,
                 buttons: ["Cancel:cancel", "Share:default"]),
        Accepted(name: "16 buttons are allowed",
                 body: #"{"title":"t","buttons":[\#((1...16).map { "\"b\($0)\"" }.joined(separator: ","))]}"#,
                 buttons: ["b1:cancel"] + (2...16).map { "b\($0):default" }),
    ]

    @Test("Accepted drafts are normalized", arguments: accepted)
    func acceptedDraft(_ example: Accepted) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert(example.body)
            #expect(alert.buttonSummary == example.buttons)
        }
    }

    @Test("Limits are inclusive: the largest allowed values are 201",
          arguments: [
              #"{"title":"\#(x(256))"}"#,
              #"{"message":"\#(x(4096))"}"#,
              #"{"title":"t","fields":[\#(Array(repeating: "{}", count: 8).joined(separator: ","))]}"#,
              #"{"title":"t","fields":[{"text":"\#(x(1024))"}]}"#,
              #"{"title":"t","presenter":"\#(x(64))"}"#,
              #"{"title":"t","presenter":"A-z_0.9"}"#,
              #"{"title":"t","timeout":604800}"#,
              #"{"title":"t","timeout":0.001}"#,
              #"{"title":"\#(String(repeating: "é", count: 256))"}"#,
          ])
    func limitsInclusive(body: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.post("/v1/alerts", body)
            #expect(response.status == 201, "\(response.text.prefix(300))")
        }
    }

    static let rejected: [Rejected] = [
        Rejected(name: "two cancel buttons",
                 body: #"{"title":"t","buttons":[{"title":"A","style":"cancel"},{"title":"B","style":"cancel"}]}"#,
                 pointer: "/buttons/1"),
        Rejected(name: "destructive naming an unknown title",
                 body: #"{"title":"t","buttons":["Cancel","OK"],"destructive":["Delete"]}"#,
                 pointer: "/destructive/0"),
        Rejected(name: "fields on an action sheet",
                 body: #"{"title":"t","style":"actionSheet","fields":[{"placeholder":"Name"}]}"#,
                 pointer: "/fields"),
        Rejected(name: "title of 257 characters", body: #"{"title":"\#(x(257))"}"#, pointer: "/title"),
        Rejected(name: "message of 4097 characters", body: #"{"message":"\#(x(4097))"}"#, pointer: "/message"),
        Rejected(name: "17 buttons",
                 body: #"{"title":"t","buttons":[\#((1...17).map { "\"b\($0)\"" }.joined(separator: ","))]}"#,
                 pointer: "/buttons"),
        Rejected(name: "9 fields",
                 body: #"{"title":"t","fields":[\#(Array(repeating: "{}", count: 9).joined(separator: ","))]}"#,
                 pointer: "/fields"),
        Rejected(name: "field text of 1025 characters",
                 body: #"{"title":"t","fields":[{"text":"\#(x(1025))"}]}"#, pointer: "/fields/0/text"),
        Rejected(name: "presenter 'bad name!'", body: #"{"title":"t","presenter":"bad name!"}"#, pointer: "/presenter"),
        Rejected(name: "presenter of 65 characters", body: #"{"title":"t","presenter":"\#(x(65))"}"#,
                 pointer: "/presenter"),
        Rejected(name: "empty presenter", body: #"{"title":"t","presenter":""}"#, pointer: "/presenter"),
        Rejected(name: "empty title and message", body: #"{"title":"","message":""}"#, pointer: "/title"),
        Rejected(name: "no title or message at all", body: #"{"buttons":["OK"]}"#, pointer: "/title"),
        Rejected(name: "timeout 0", body: #"{"title":"t","timeout":0}"#, pointer: "/timeout"),
        Rejected(name: "timeout -1", body: #"{"title":"t","timeout":-1}"#, pointer: "/timeout"),
        Rejected(name: "timeout 700000", body: #"{"title":"t","timeout":700000}"#, pointer: "/timeout"),
        Rejected(name: "button title of 257 characters", body: #"{"title":"t","buttons":["\#(x(257))"]}"#,
                 pointer: "/buttons/0/title"),
        Rejected(name: "placeholder of 257 characters",
                 body: #"{"title":"t","fields":[{"placeholder":"\#(x(257))"}]}"#, pointer: "/fields/0/placeholder"),
        Rejected(name: "destructive [1]", body: #"{"title":"t","buttons":["A","B"],"destructive":[1]}"#,
                 pointer: "/destructive/0"),
        Rejected(name: "an empty button title", body: #"{"title":"t","buttons":["OK",""]}"#,
                 pointer: "/buttons/1/title"),
        Rejected(name: "unknown member 'mesage'", body: #"{"title":"t","mesage":"typo"}"#, pointer: "/mesage"),
        Rejected(name: "unknown member in a button",
                 body: #"{"title":"t","buttons":[{"title":"A","colour":"red"}]}"#, pointer: "/buttons/0/colour"),
        Rejected(name: "unknown member in a field", body: #"{"title":"t","fields":[{"secret":true}]}"#,
                 pointer: "/fields/0/secret"),
        Rejected(name: "title 5", body: #"{"title":5}"#, pointer: "/title"),
        Rejected(name: "message []", body: #"{"message":[]}"#, pointer: "/message"),
        Rejected(name: "buttons \"x\"", body: #"{"title":"t","buttons":"x"}"#, pointer: "/buttons"),
        Rejected(name: "a button 7", body: #"{"title":"t","buttons":["OK",7]}"#, pointer: "/buttons/1"),
        Rejected(name: "a button without a title", body: #"{"title":"t","buttons":[{"style":"cancel"}]}"#,
                 pointer: "/buttons/0/title"),
        Rejected(name: "button style \"loud\"", body: #"{"title":"t","buttons":[{"title":"A","style":"loud"}]}"#,
                 pointer: "/buttons/0/style"),
        Rejected(name: "animated \"yes\"", body: #"{"title":"t","animated":"yes"}"#, pointer: "/animated"),
        Rejected(name: "tag 1.5", body: #"{"title":"t","tag":1.5}"#, pointer: "/tag"),
        Rejected(name: "tag beyond Int64", body: #"{"title":"t","tag":9223372036854775808}"#, pointer: "/tag"),
        Rejected(name: "tag \"7\"", body: #"{"title":"t","tag":"7"}"#, pointer: "/tag"),
        Rejected(name: "style \"fancy\"", body: #"{"title":"t","style":"fancy"}"#, pointer: "/style"),
        Rejected(name: "timeout \"10\"", body: #"{"title":"t","timeout":"10"}"#, pointer: "/timeout"),
        Rejected(name: "destructive \"Delete\"", body: #"{"title":"t","destructive":"Delete"}"#,
                 pointer: "/destructive"),
        Rejected(name: "fields {}", body: #"{"title":"t","fields":{}}"#, pointer: "/fields"),
        Rejected(name: "a field \"x\"", body: #"{"title":"t","fields":["x"]}"#, pointer: "/fields/0"),
        Rejected(name: "secure \"true\"", body: #"{"title":"t","fields":[{"secure":"true"}]}"#,
                 pointer: "/fields/0/secure"),
        Rejected(name: "keyboard \"klingon\"", body: #"{"title":"t","fields":[{"keyboard":"klingon"}]}"#,
                 pointer: "/fields/0/keyboard"),
        Rejected(name: "keyboard 99", body: #"{"title":"t","fields":[{"keyboard":99}]}"#,
                 pointer: "/fields/0/keyboard"),
        Rejected(name: "keyboard -1", body: #"{"title":"t","fields":[{"keyboard":-1}]}"#,
                 pointer: "/fields/0/keyboard"),
        Rejected(name: "keyboard true", body: #"{"title":"t","fields":[{},{"keyboard":true}]}"#,
                 pointer: "/fields/1/keyboard"),
    ]

    @Test("Rejected drafts are 422 problems naming the member", arguments: rejected)
    func rejectedDraft(_ example: Rejected) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.post("/v1/alerts", example.body)
            expectProblem(response, 422, pointer: example.pointer, type: "urn:alertd:problem:validation-failed")
            // Nothing was created.
            #expect(try await server.listIDs("state=all") == [])
        }
    }

    @Test("The cancel button cannot be destructive, and the problem says why",
          arguments: [
              #"{"title":"t","buttons":["Cancel","Delete"],"destructive":["Cancel"]}"#,
              #"{"title":"t","buttons":["Delete",{"title":"Stop","style":"cancel"}],"destructive":["Stop"]}"#,
              #"{"title":"t","buttons":[{"title":"Delete","style":"destructive"},"Keep"]}"#,
          ])
    func cancelCannotBeDestructive(body: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.post("/v1/alerts", body)
            let problem = expectProblem(response, 422)
            let errors = problem["errors"]?.arrayValue ?? []
            let pointer = try #require(errors.first?["pointer"]?.stringValue)
            #expect(["/destructive/0", "/buttons/0", "/buttons/0/style"].contains(pointer), "\(response.text)")
            let detail = errorDetail(problem, at: pointer)
            #expect(detail.lowercased().contains("cancel"), "the detail should say why: \(detail)")
            #expect(detail.lowercased().contains("destructive"), "the detail should say why: \(detail)")
        }
    }

    @Test("Every problem in a draft is named in one 422")
    func allProblemsNamed() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.post("/v1/alerts", #"{"title":5,"style":"fancy","animated":"yes"}"#)
            let problem = expectProblem(response, 422, pointer: "/title")
            expectProblem(response, 422, pointer: "/style")
            expectProblem(response, 422, pointer: "/animated")
            #expect(problem["errors"]?.arrayValue?.count == 3)
        }
    }
}
