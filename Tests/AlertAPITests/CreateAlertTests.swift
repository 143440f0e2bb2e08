@testable import AlertAPI
import Foundation
import Testing

/// `POST /v1/alerts` and `GET /v1/alerts/{id}`: what a producer gets back.
@Suite("Creating and reading alerts")
struct CreateAlertTests {
    @Test("201 with Location and the Alert in the contract's shape and defaults")
    func createdShapeAndDefaults() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let before = Date()
            let response = try await server.post("/v1/alerts", #"{"message":"hi"}"#)
            #expect(response.status == 201)
            #expect(response.contentType.hasPrefix("application/json"))
            let alert = response.json
            let id = try #require(alert["id"]?.stringValue)
            #expect(response.headers["location"] == "/v1/alerts/\(id)")
            // The contract's members, in its order (later additions may follow them).
            #expect(Array(alert.keys.prefix(alertMembers.count)) == alertMembers, "\(alert.keys)")
            #expect(alert["title"] == .string(""))
            #expect(alert["message"] == .string("hi"))
            #expect(alert["style"] == .string("alert"))
            #expect(alert["tag"] == .integer(0))
            #expect(alert["presenter"] == .string("root"))
            #expect(alert["animated"] == .bool(true))
            #expect(alert.buttonSummary == ["OK:default"])
            #expect(alert["fields"] == .array([]))
            #expect(alert["state"] == .string("pending"))
            #expect(alert["result"] == .null)
            #expect(alert["expiresAt"] == .null)
            let createdAt = try #require(alert["createdAt"]?.stringValue)
            #expect(isRFC3339(createdAt), "\(createdAt)")
            #expect(createdAt.wholeMatch(of: #/.*T\d{2}:\d{2}:\d{2}\.\d{3}Z/#) != nil, "UTC with milliseconds: \(createdAt)")
            let created = try #require(RFC3339.parse(createdAt))
            #expect(abs(created.timeIntervalSince(before)) < 5)
        }
    }

    @Test("The Location header leads to the same alert")
    func locationIsReadable() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let created = try await server.post("/v1/alerts", loginAlert)
            let location = try #require(created.headers["location"])
            let fetched = try await server.get(location)
            #expect(fetched.status == 200)
            #expect(fetched.json == created.json)
        }
    }

    @Test("Ids are 22 URL-safe characters and unique across 1000 creates")
    func idsAreUniqueAndURLSafe() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let ids = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var ids: [String] = []
                        for _ in 0..<125 {
                            let response = try await server.post("/v1/alerts", #"{"message":"id"}"#)
                            ids.append(response.json["id"]?.stringValue ?? "<status \(response.status)>")
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(ids.count == 1000)
            #expect(Set(ids).count == 1000)
            let urlSafe = #/^[A-Za-z0-9_-]{22}$/#
            let bad = ids.filter { $0.wholeMatch(of: urlSafe) == nil }
            #expect(bad.isEmpty, "not 22 URL-safe characters: \(bad.prefix(5))")
        }
    }

    @Test("The body is JSON whatever the Content-Type (curl -d works)",
          arguments: [nil, "application/x-www-form-urlencoded", "text/plain", "application/json; charset=utf-8"])
    func anyContentType(contentType: String?) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let headers = contentType.map { [("Content-Type", $0)] } ?? []
            let response = try await server.send("POST", "/v1/alerts", body: #"{"message":"hi"}"#, headers: headers)
            #expect(response.status == 201, "\(response.text)")
            #expect(response.json["message"] == .string("hi"))
        }
    }

    @Test("tag round-trips as a 64-bit integer", arguments: [Int64.max, Int64.min, -1, 0, 42])
    func tagRoundTrips(tag: Int64) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert(#"{"message":"tag","tag":\#(tag)}"#)
            #expect(alert["tag"] == .integer(tag))
            let id = try #require(alert["id"]?.stringValue)
            #expect(try await server.alert(id).json["tag"] == .integer(tag))
        }
    }

    @Test("a tag beyond 64 bits is 422 at /tag, not rounded into range",
          arguments: ["9223372036854775808", "-9223372036854775809", "1e19", "-1e19"])
    func tagOutOfRange(tag: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.post("/v1/alerts", #"{"message":"tag","tag":\#(tag)}"#)
            expectProblem(response, 422, pointer: "/tag")
        }
    }

    @Test("title, style, presenter and animated are echoed back")
    func membersEchoed() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert("""
                {"title":"Delete?","message":"Really?","style":"actionSheet","presenter":"photos.main-1_x",
                 "animated":false,"buttons":["Cancel","Delete"]}
                """)
            #expect(alert["title"] == .string("Delete?"))
            #expect(alert["message"] == .string("Really?"))
            #expect(alert["style"] == .string("actionSheet"))
            #expect(alert["presenter"] == .string("photos.main-1_x"))
            #expect(alert["animated"] == .bool(false))
        }
    }

    @Test("Members given as null count as absent")
    func nullMeansDefault() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert("""
                {"title":null,"message":"m","style":null,"tag":null,"presenter":null,"animated":null,
                 "buttons":null,"destructive":null,"fields":null,"timeout":null}
                """)
            #expect(alert["style"] == .string("alert"))
            #expect(alert["tag"] == .integer(0))
            #expect(alert["presenter"] == .string("root"))
            #expect(alert["animated"] == .bool(true))
            #expect(alert.buttonSummary == ["OK:default"])
            #expect(alert["expiresAt"] == .null)
        }
    }

    @Test("The seeds' shapes: buttons as strings and objects, destructive titles")
    func seedButtonShapes() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert("""
                {"title":"Photo","buttons":["Cancel",{"title":"Share"},{"title":"Delete","style":"destructive"},
                 "Erase"],"destructive":["Erase"]}
                """)
            #expect(alert.buttonSummary == ["Cancel:cancel", "Share:default", "Delete:destructive",
                                            "Erase:destructive"])
        }
    }

    @Test("The seeds' login alert: fields with placeholder, secure and keyboard")
    func seedLoginFields() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert(loginAlert)
            #expect(alert.buttonSummary == ["Cancel:cancel", "Log in:default"])
            let fields = try #require(alert["fields"]?.arrayValue)
            #expect(fields.count == 2)
            #expect(fields.first?.keys == ["index", "text", "placeholder", "secure", "keyboard"])
            #expect(fields.first == .object(["index": .integer(0), "text": .string(""),
                                            "placeholder": .string("Username"), "secure": .bool(false),
                                            "keyboard": .string("default")]))
            #expect(fields.last == .object(["index": .integer(1), "text": .string(""),
                                           "placeholder": .string("Password"), "secure": .bool(true),
                                           "keyboard": .string("asciiCapable")]))
        }
    }

    @Test("keyboard accepts the name, the Objective-C name, the alias and the raw value",
          arguments: [
              (#""asciiCapable""#, "asciiCapable"),
              (#""UIKeyboardTypeAlphabet""#, "asciiCapable"),
              (#""alphabet""#, "asciiCapable"),
              ("1", "asciiCapable"),
              (#""UIKeyboardTypeEmailAddress""#, "emailAddress"),
              (#""URL""#, "URL"),
              ("4", "numberPad"),
              ("11", "asciiCapableNumberPad"),
              ("0", "default"),
          ])
    func keyboardSpellings(input: String, expected: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert(#"{"title":"k","fields":[{"keyboard":\#(input)}]}"#)
            #expect(alert["fields"]?[0]?["keyboard"] == .string(expected))
        }
    }

    @Test("timeout sets expiresAt to createdAt + timeout")
    func timeoutSetsExpiresAt() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let alert = try await server.createAlert(#"{"message":"later","timeout":90.5}"#)
            let createdAt = try #require(alert["createdAt"]?.stringValue.flatMap(RFC3339.parse))
            let expiresText = try #require(alert["expiresAt"]?.stringValue)
            #expect(isRFC3339(expiresText))
            let expiresAt = try #require(RFC3339.parse(expiresText))
            #expect(abs(expiresAt.timeIntervalSince(createdAt) - 90.5) < 0.01)
            #expect(alert["state"] == .string("pending"))
        }
    }

    @Test("Strings round-trip exactly: escapes, control characters, non-ASCII, emoji")
    func stringsRoundTrip() async throws {
        let tricky = "Quote \" backslash \\ slash / newline \n tab \t NUL \u{0} bell \u{7} DEL \u{7F} "
            + "LS \u{2028} PS \u{2029} é e\u{301} 日本語 👩‍👩‍👧‍👦 🎉 \u{FEFF}"
        try await LiveServer.with(transport: .inProcess) { server in
            let body = #"{"title":\#(jsonString(tricky)),"message":"\u00e9\ud83c\udf89","#
                + #""buttons":[\#(jsonString("Cancel ✋")),\#(jsonString(tricky))],"#
                + #""fields":[{"text":\#(jsonString(tricky)),"placeholder":"\u65e5"}]}"#
            let alert = try await server.createAlert(body)
            #expect(alert["title"] == .string(tricky))
            #expect(alert["message"] == .string("é🎉"))
            #expect(alert["buttons"]?[1]?["title"] == .string(tricky))
            #expect(alert["fields"]?[0]?["text"] == .string(tricky))
            #expect(alert["fields"]?[0]?["placeholder"] == .string("日"))
            let id = try #require(alert["id"]?.stringValue)
            #expect(try await server.alert(id).json == alert)
            let answer = try await server.answer(id, #"{"button":\#(jsonString(tricky)),"values":[\#(jsonString(tricky))]}"#)
            #expect(answer.json["buttonTitle"] == .string(tricky))
            #expect(answer.json["values"] == .array([.string(tricky)]))
        }
    }

    @Test("Lengths count characters, not bytes: 256 emoji families are a valid title")
    func lengthsCountCharacters() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let family = "👩‍👩‍👧‍👦"
            let ok = try await server.post("/v1/alerts", #"{"title":\#(jsonString(String(repeating: family, count: 256)))}"#)
            #expect(ok.status == 201, "\(ok.text.prefix(200))")
            let tooLong = try await server.post("/v1/alerts",
                                                #"{"title":\#(jsonString(String(repeating: family, count: 257)))}"#)
            expectProblem(tooLong, 422, pointer: "/title")
        }
    }

    @Test("GET /v1/alerts/{id} shows the producer the secure field's text")
    func getShowsSecureText() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create("""
                {"title":"Login","fields":[{"text":"alice"},{"text":"hunter2","secure":true}]}
                """)
            let response = try await server.alert(id)
            #expect(response.status == 200)
            #expect(response.contentType.hasPrefix("application/json"))
            #expect(response.json["id"] == .string(id))
            #expect(response.json["fields"]?[0]?["text"] == .string("alice"))
            #expect(response.json["fields"]?[1]?["text"] == .string("hunter2"))
            #expect(response.json["state"] == .string("pending"))
        }
    }

    @Test("GET /v1/alerts/{id} of an unknown id is a 404 problem")
    func getUnknownIs404() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.alert("AAAAAAAAAAAAAAAAAAAAAA")
            expectProblem(response, 404, type: "urn:alertd:problem:not-found")
        }
    }
}
