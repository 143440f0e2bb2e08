import AlertClient
import Foundation
import Testing

@Suite("AlertClient: get, response, answer, dismiss")
struct AnswerTests {
    @Test("alert(id) returns the alert; with wait it returns the pending alert after the wait")
    func getAlert() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let created = try await client.create(loginInput)
            #expect(try await client.alert(created.id) == created)
            let start = ContinuousClock.now
            let waited = try await client.alert(created.id, wait: 1)
            #expect(ContinuousClock.now - start >= .milliseconds(900))
            #expect(waited.isPending)
        }
    }

    @Test("response is nil while pending, then the Result; secure values included")
    func responseAndAnswerByIndex() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(loginInput)
            #expect(try await client.response(alert.id) == nil)
            let result = try await client.answer(alert.id, buttonIndex: 1, values: ["alice", "secret"])
            #expect(result.buttonIndex == 1 && result.buttonTitle == "Log in")
            #expect(result.ok && result.isAnswered && result.isAccepted)
            #expect(result.values == ["alice", "secret"])
            #expect(try await client.response(alert.id) == result)
            let resolved = try await client.alert(alert.id)
            #expect(resolved.state == "resolved" && resolved.result == result && !resolved.isPending)
        }
    }

    @Test("a long-poll on the response wakes when another client answers")
    func longPollWakes() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
            async let waited = client.response(alert.id, wait: 30)
            await server.waitForWaiters(1)
            let answered = try await server.client().answer(alert.id, button: "Yes")
            #expect(try await waited == answered)
        }
    }

    @Test("answer by title keeps the fields' text when values are omitted")
    func answerByTitle() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(
                AlertInput(title: "Rename", buttons: ["Cancel", "Rename"], fields: [FieldInput(text: "draft.txt")]))
            let result = try await client.answer(alert.id, button: "Cancel")
            #expect(result.buttonIndex == 0 && !result.ok && !result.isAccepted)
            #expect(result.values == ["draft.txt"])
        }
    }

    @Test("a second answer or dismissal is 409 carrying the Result that won")
    func conflict() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(AlertInput(title: "Go?", buttons: ["No", "Yes"]))
            let won = try await client.answer(alert.id, buttonIndex: 1)
            let again = await #expect(throws: AlertClientError.self) {
                try await client.answer(alert.id, buttonIndex: 0)
            }
            #expect(again?.kind == .server && again?.isConflict == true)
            #expect(again?.problem?.result == won)
            let dismissal = await #expect(throws: AlertClientError.self) { try await client.dismiss(alert.id) }
            #expect(dismissal?.status == 409 && dismissal?.problem?.result == won)
        }
    }

    @Test("bad answers are 422 with a pointer; unknown ids are 404")
    func badAnswers() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(loginInput)
            let badIndex = await #expect(throws: AlertClientError.self) {
                try await client.answer(alert.id, buttonIndex: 9)
            }
            #expect(badIndex?.status == 422 && badIndex?.problem?.errors.isEmpty == false)
            let badTitle = await #expect(throws: AlertClientError.self) {
                try await client.answer(alert.id, button: "Nope")
            }
            #expect(badTitle?.status == 422)
            let badCount = await #expect(throws: AlertClientError.self) {
                try await client.answer(alert.id, buttonIndex: 1, values: ["only one"])
            }
            #expect(badCount?.status == 422)
            let errors = [
                await #expect(throws: AlertClientError.self) { try await client.alert("nope") },
                await #expect(throws: AlertClientError.self) { try await client.response("nope") },
                await #expect(throws: AlertClientError.self) { try await client.answer("nope", buttonIndex: 0) },
                await #expect(throws: AlertClientError.self) { try await client.dismiss("nope") },
                await #expect(throws: AlertClientError.self) { try await client.waitForResult("nope") },
            ]
            for error in errors {
                #expect(error?.isNotFound == true && error?.problem?.type == "urn:alertd:problem:not-found")
            }
        }
    }

    @Test("dismiss resolves as the cancel button and wakes the waiter")
    func dismiss() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let alert = try await client.create(loginInput)
            async let waited = client.waitForResult(alert.id)
            await server.waitForWaiters(1)
            let result = try await client.dismiss(alert.id)
            #expect(result.resolution == "dismissed" && result.buttonTitle == "Cancel" && !result.isAccepted)
            #expect(try await waited == result)
        }
    }

    @Test("ids are sent as one path segment")
    func oddIDs() async throws {
        try await LiveAlertd.with { server in
            let error = await #expect(throws: AlertClientError.self) {
                try await server.client().alert("../healthz?x=1#y")
            }
            #expect(error?.status == 404)
        }
    }
}
