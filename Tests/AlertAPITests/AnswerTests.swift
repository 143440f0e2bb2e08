@testable import AlertAPI
import Foundation
import Testing

/// `POST /v1/alerts/{id}/response` and `DELETE /v1/alerts/{id}`: what a responder and a
/// withdrawing producer see.
@Suite("Answering and dismissing alerts")
struct AnswerTests {
    @Test("Answer by buttonIndex: 200 with the Result in the contract's shape")
    func answerByIndex() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let response = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","secret"]}"#)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.contentType.hasPrefix("application/json"))
            let result = response.json
            #expect(result.keys
                    == ["buttonIndex", "buttonTitle", "ok", "values", "resolution", "resolvedAt", "responder", "votes"])
            #expect(result["buttonIndex"] == .integer(1))
            #expect(result["buttonTitle"] == .string("Log in"))
            #expect(result["ok"] == .bool(true))
            #expect(result["values"] == .array([.string("alice"), .string("secret")]))
            #expect(result["resolution"] == .string("answered"))
            #expect(isRFC3339(result["resolvedAt"]?.stringValue))

            // The alert now shows it, secure value included (the producer's view).
            let alert = try await server.alert(id).json
            #expect(alert["state"] == .string("resolved"))
            #expect(alert["result"] == result)
        }
    }

    @Test("Answer by title picks that button")
    func answerByTitle() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","Later","Now"]}"#)
            let response = try await server.answer(id, #"{"button":"Now"}"#)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["buttonIndex"] == .integer(2))
            #expect(response.json["buttonTitle"] == .string("Now"))
            #expect(response.json["ok"] == .bool(true))
        }
    }

    @Test("Answer by title uses the normalized index of a moved cancel button")
    func answerByTitleAfterCancelMoved() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Yes",{"title":"No","style":"cancel"}]}"#)
            let response = try await server.answer(id, #"{"button":"Yes"}"#)
            #expect(response.json["buttonIndex"] == .integer(1))
            #expect(response.json["ok"] == .bool(true))
        }
    }

    @Test("Answer by a title that two buttons share is 422 saying to answer by buttonIndex; nothing changes")
    func answerByDuplicateTitle() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Same","Other","Same"]}"#)
            let response = try await server.answer(id, #"{"button":"Same"}"#)
            let problem = expectProblem(response, 422, type: "urn:alertd:problem:validation-failed")
            let detail = errorDetail(problem, at: "/button")
            #expect(detail.contains("2 buttons are titled 'Same' (indexes 0, 2)"), "\(detail)")
            #expect(detail.contains("answer by buttonIndex"), "\(detail)")
            #expect(try await server.alert(id).json["state"] == .string("pending"))
            let byIndex = try await server.answer(id, #"{"buttonIndex":2}"#)
            #expect(byIndex.json["buttonIndex"] == .integer(2) && byIndex.json["ok"] == .bool(true))
        }
    }

    @Test("Omitted values default to each field's text")
    func valuesDefaultToText() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create("""
                {"title":"t","buttons":["Cancel","Save"],
                 "fields":[{"text":"draft.txt"},{"text":"s3cret","secure":true},{}]}
                """)
            let response = try await server.answer(id, #"{"button":"Save"}"#)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["values"] == .array([.string("draft.txt"), .string("s3cret"), .string("")]))
        }
    }

    @Test("The cancel button's Result has ok false")
    func cancelIsNotOK() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let response = try await server.answer(id, #"{"buttonIndex":0,"values":["",""]}"#)
            #expect(response.status == 200)
            #expect(response.json["buttonTitle"] == .string("Cancel"))
            #expect(response.json["ok"] == .bool(false))
        }
    }

    @Test("An action sheet's Result has values []")
    func actionSheetValues() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","style":"actionSheet","buttons":["Cancel","Share"]}"#)
            let response = try await server.answer(id, #"{"buttonIndex":1}"#)
            #expect(response.status == 200)
            #expect(response.json["values"] == .array([]))
        }
    }

    struct BadAnswer: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var pointer: String
        var testDescription: String { name }
    }

    static let badAnswers: [BadAnswer] = [
        BadAnswer(name: "too few values", body: #"{"buttonIndex":1,"values":["alice"]}"#, pointer: "/values"),
        BadAnswer(name: "too many values", body: #"{"buttonIndex":1,"values":["a","b","c"]}"#, pointer: "/values"),
        BadAnswer(name: "empty values for two fields", body: #"{"buttonIndex":1,"values":[]}"#, pointer: "/values"),
        BadAnswer(name: "index past the last button", body: #"{"buttonIndex":2}"#, pointer: "/buttonIndex"),
        BadAnswer(name: "negative index", body: #"{"buttonIndex":-1}"#, pointer: "/buttonIndex"),
        BadAnswer(name: "fractional index", body: #"{"buttonIndex":1.5}"#, pointer: "/buttonIndex"),
        BadAnswer(name: "index as a string", body: #"{"buttonIndex":"1"}"#, pointer: "/buttonIndex"),
        BadAnswer(name: "unknown title", body: #"{"button":"Sign up"}"#, pointer: "/button"),
        BadAnswer(name: "title of another case", body: #"{"button":"log in"}"#, pointer: "/button"),
        BadAnswer(name: "both index and title", body: #"{"buttonIndex":1,"button":"Log in"}"#, pointer: ""),
        BadAnswer(name: "neither index nor title", body: #"{"values":["a","b"]}"#, pointer: ""),
        BadAnswer(name: "an empty object", body: "{}", pointer: ""),
        BadAnswer(name: "values as a string", body: #"{"buttonIndex":1,"values":"alice"}"#, pointer: "/values"),
        BadAnswer(name: "a value that is not a string", body: #"{"buttonIndex":1,"values":["a",2]}"#,
                  pointer: "/values/1"),
        BadAnswer(name: "a value of 1025 characters",
                  body: #"{"buttonIndex":1,"values":["a","\#(String(repeating: "v", count: 1025))"]}"#,
                  pointer: "/values/1"),
        BadAnswer(name: "an unknown member", body: #"{"buttonIndex":1,"value":["a","b"]}"#, pointer: "/value"),
    ]

    @Test("Bad answers are 422 problems naming the member, and the alert stays pending", arguments: badAnswers)
    func badAnswer(_ example: BadAnswer) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let response = try await server.answer(id, example.body)
            expectProblem(response, 422, pointer: example.pointer, type: "urn:alertd:problem:validation-failed")
            #expect(try await server.response(id).status == 204)
            // A good answer still wins afterwards.
            let good = try await server.answer(id, #"{"buttonIndex":1,"values":["a","b"]}"#)
            #expect(good.status == 200)
        }
    }

    @Test("A second answer is 409 with the Result that won")
    func secondAnswerConflicts() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let first = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","secret"]}"#)
            #expect(first.status == 200)
            for body in [#"{"buttonIndex":0,"values":["x","y"]}"#, #"{"button":"Log in"}"#,
                         #"{"buttonIndex":1,"values":["alice","secret"]}"#] {
                let second = try await server.answer(id, body)
                let problem = expectProblem(second, 409, type: "urn:alertd:problem:already-resolved")
                #expect(problem["result"] == first.json)
            }
            // Even an answer that would be invalid tells who won.
            let invalid = try await server.answer(id, #"{"buttonIndex":9}"#)
            #expect(invalid.status == 409 || invalid.status == 422, "\(invalid.text)")
            // The winner is what the producer gets.
            #expect(try await server.response(id).json == first.json)
        }
    }

    @Test("DELETE withdraws: dismissed as the cancel button, then answers are 409")
    func deleteDismisses() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create("""
                {"title":"t","buttons":["Go",{"title":"Stop","style":"cancel"}],"fields":[{"text":"pre"}]}
                """)
            let dismissed = try await server.delete("/v1/alerts/\(id)")
            #expect(dismissed.status == 200, "\(dismissed.text)")
            let result = dismissed.json
            #expect(result["buttonIndex"] == .integer(0))
            #expect(result["buttonTitle"] == .string("Stop"))
            #expect(result["ok"] == .bool(false))
            #expect(result["values"] == .array([.string("pre")]))
            #expect(result["resolution"] == .string("dismissed"))
            #expect(isRFC3339(result["resolvedAt"]?.stringValue))

            let answer = try await server.answer(id, #"{"buttonIndex":1,"values":["x"]}"#)
            #expect(expectProblem(answer, 409)["result"] == result)
            let again = try await server.delete("/v1/alerts/\(id)")
            #expect(expectProblem(again, 409)["result"] == result)
            #expect(try await server.response(id).json == result)
        }
    }

    @Test("DELETE of a simple alert resolves as its only button")
    func deleteSimpleAlert() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let dismissed = try await server.delete("/v1/alerts/\(id)")
            #expect(dismissed.status == 200)
            #expect(dismissed.json["buttonIndex"] == .integer(0))
            #expect(dismissed.json["buttonTitle"] == .string("OK"))
            #expect(dismissed.json["resolution"] == .string("dismissed"))
        }
    }

    @Test("Unknown ids are 404 problems: answer, DELETE, GET response")
    func unknownIDs() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let unknown = "AAAAAAAAAAAAAAAAAAAAAA"
            expectProblem(try await server.answer(unknown, #"{"buttonIndex":0}"#), 404,
                          type: "urn:alertd:problem:not-found")
            expectProblem(try await server.delete("/v1/alerts/\(unknown)"), 404, type: "urn:alertd:problem:not-found")
            expectProblem(try await server.response(unknown), 404, type: "urn:alertd:problem:not-found")
            expectProblem(try await server.response(unknown, wait: 1), 404, type: "urn:alertd:problem:not-found")
        }
    }
}
