import AlertAPI
import Foundation
import Testing
import JSON

/// `GET /v1/alerts`: what a responder (the dashboard, curl) sees, and the blocking query.
@Suite("Listing alerts")
struct ListTests {
    @Test("Default: pending only, oldest first, in the contract's shape")
    func defaultPendingOldestFirst() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let a = try await server.create(#"{"message":"a"}"#)
            let b = try await server.create(#"{"message":"b"}"#)
            let c = try await server.create(#"{"message":"c"}"#)
            #expect(try await server.answer(b, #"{"buttonIndex":0}"#).status == 200)
            let response = try await server.get("/v1/alerts")
            #expect(response.status == 200)
            #expect(response.contentType.hasPrefix("application/json"))
            #expect(response.json.keys == ["index", "alerts"])
            #expect(response.json.ids == [a, c])
            #expect(response.headers["x-alertd-index"] == response.json["index"]?.int64Value.map(String.init))
            let first = try #require(response.json["alerts"]?[0])
            #expect(Array(first.keys.prefix(alertMembers.count)) == alertMembers, "\(first.keys)")
            #expect(first["state"] == .string("pending"))
        }
    }

    @Test("state=pending|resolved|all")
    func stateFilter() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let a = try await server.create(#"{"message":"a"}"#)
            let b = try await server.create(#"{"message":"b"}"#)
            let c = try await server.create(#"{"message":"c"}"#)
            let d = try await server.create(#"{"message":"d"}"#)
            #expect(try await server.answer(c, #"{"buttonIndex":0}"#).status == 200)
            #expect(try await server.delete("/v1/alerts/\(a)").status == 200)
            #expect(try await server.listIDs("state=pending") == [b, d])
            #expect(try await server.listIDs("state=resolved") == [a, c])
            #expect(try await server.listIDs("state=all") == [a, b, c, d])
            let resolved = try await server.list("state=resolved")
            #expect(resolved["alerts"]?[0]?["result"]?["resolution"] == .string("dismissed"))
            #expect(resolved["alerts"]?[1]?["result"]?["resolution"] == .string("answered"))
        }
    }

    @Test("presenter= filters by presenter")
    func presenterFilter() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let r1 = try await server.create(#"{"message":"r1"}"#)
            let p1 = try await server.create(#"{"message":"p1","presenter":"photos"}"#)
            let r2 = try await server.create(#"{"message":"r2","presenter":"root"}"#)
            let p2 = try await server.create(#"{"message":"p2","presenter":"photos"}"#)
            let s1 = try await server.create(#"{"message":"s1","presenter":"settings"}"#)
            #expect(try await server.listIDs("presenter=photos") == [p1, p2])
            #expect(try await server.listIDs("presenter=root") == [r1, r2])
            #expect(try await server.listIDs("presenter=nobody") == [])
            #expect(try await server.answer(p1, #"{"buttonIndex":0}"#).status == 200)
            #expect(try await server.listIDs("presenter=photos") == [p2])
            #expect(try await server.listIDs("presenter=photos&state=resolved") == [p1])
            #expect(try await server.listIDs("presenter=photos&state=all") == [p1, p2])
            #expect(try await server.listIDs("presenter=settings&state=all") == [s1])
        }
    }

    @Test("limit= caps the page, keeping the oldest")
    func limit() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            var ids: [String] = []
            for number in 0..<5 { ids.append(try await server.create(#"{"message":"\#(number)"}"#)) }
            #expect(try await server.listIDs("limit=2") == Array(ids.prefix(2)))
            #expect(try await server.listIDs("limit=1") == [ids[0]])
            #expect(try await server.listIDs("limit=1000") == ids)
            #expect(try await server.listIDs("limit=3&state=all") == Array(ids.prefix(3)))
        }
    }

    @Test("Secure values are null in lists but shown by GET by id")
    func secureValuesRedacted() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create("""
                {"title":"Login","buttons":["Cancel","Log in"],
                 "fields":[{"text":"alice"},{"text":"hunter2","secure":true}]}
                """)
            let pending = try await server.list()
            let fields = try #require(pending["alerts"]?[0]?["fields"])
            #expect(fields[0]?["text"] == .string("alice"))
            #expect(fields[1]?["text"] == .null)
            #expect(!(try await server.get("/v1/alerts")).text.contains("hunter2"))

            let answer = try await server.answer(id, #"{"buttonIndex":1,"values":["bob","pa55word"]}"#)
            #expect(answer.json["values"] == .array([.string("bob"), .string("pa55word")]))
            for query in ["state=resolved", "state=all"] {
                let response = try await server.get("/v1/alerts?\(query)")
                let listed = try #require(response.json["alerts"]?[0])
                #expect(listed["fields"]?[1]?["text"] == .null)
                #expect(listed["result"]?["values"] == .array([.string("bob"), .null]))
                #expect(!response.text.contains("pa55word"))
                #expect(!response.text.contains("hunter2"))
            }

            let byID = try await server.alert(id).json
            #expect(byID["fields"]?[1]?["text"] == .string("hunter2"))
            #expect(byID["result"]?["values"] == .array([.string("bob"), .string("pa55word")]))
            #expect(try await server.response(id).json["values"]?[1] == .string("pa55word"))
        }
    }

    @Test("index grows on every create and every resolution, and not on reads")
    func indexGrows() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            func index() async throws -> Int64 { try #require(try await server.list()["index"]?.int64Value) }
            let start = try await index()
            let id = try await server.create(#"{"message":"a"}"#)
            let afterCreate = try await index()
            #expect(afterCreate > start)
            _ = try await server.alert(id)
            _ = try await server.response(id)
            #expect(try await index() == afterCreate)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let afterAnswer = try await index()
            #expect(afterAnswer > afterCreate)
            let other = try await server.create(#"{"message":"b"}"#)
            let afterSecondCreate = try await index()
            #expect(afterSecondCreate > afterAnswer)
            _ = try await server.delete("/v1/alerts/\(other)")
            #expect(try await index() > afterSecondCreate)
            // A rejected create and a failed answer change nothing.
            let before = try await index()
            _ = try await server.post("/v1/alerts", #"{"title":5}"#)
            _ = try await server.answer(other, #"{"buttonIndex":0}"#)
            #expect(try await index() == before)
        }
    }

    @Test("Blocking query: index older than the store's answers at once")
    func blockingQueryAnswersAtOnce() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"a"}"#)
            let index = try #require(try await server.list()["index"]?.int64Value)
            let watch = Stopwatch()
            let response = try await server.list("index=\(index - 1)&wait=60")
            #expect(watch.seconds < TestTime.sooner(than: 60))
            #expect(response.ids == [id])
            #expect(response["index"]?.int64Value == index)
        }
    }

    @Test("Blocking query: woken by a create at once, not at the end of its wait")
    func blockingQueryWokenByCreate() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let index = try #require(try await server.list()["index"]?.int64Value)
            let query = Task { () throws -> (JSONValue, ContinuousClock.Instant) in
                let body = try await server.list("index=\(index)&wait=60")
                return (body, ContinuousClock.now)
            }
            await server.waitForWaiters(1)
            let createdAt = ContinuousClock.now
            let id = try await server.create(#"{"message":"new"}"#)
            let (body, wokenAt) = try await query.value
            let delay = (wokenAt - createdAt).seconds
            #expect(delay < TestTime.sooner(than: 60), "woke \(delay) s after the create was sent")
            #expect((body["index"]?.int64Value ?? 0) > index)
            #expect(body.ids == [id])
        }
    }

    @Test("Blocking query: woken by a resolution")
    func blockingQueryWokenByAnswer() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"a"}"#)
            let index = try #require(try await server.list()["index"]?.int64Value)
            let query = Task { try await server.list("index=\(index)&wait=60&state=resolved") }
            await server.waitForWaiters(1)
            let watch = Stopwatch()
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let body = try await query.value
            #expect(watch.seconds < TestTime.sooner(than: 60))
            #expect(body.ids == [id])
        }
    }

    @Test("Blocking query with nothing happening answers after wait, unchanged")
    func blockingQueryTimesOut() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let index = try #require(try await server.list()["index"]?.int64Value)
            let watch = Stopwatch()
            let body = try await server.list("index=\(index)&wait=1")
            #expect(watch.seconds >= 0.8)
            #expect(watch.seconds < 1 + TestTime.bound(10))
            #expect(body["index"]?.int64Value == index)
        }
    }

    @Test("wait without index answers at once")
    func waitWithoutIndex() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let watch = Stopwatch()
            _ = try await server.list("wait=60")
            #expect(watch.seconds < TestTime.sooner(than: 60), "answered at once, not after the wait")
        }
    }

    @Test("Bad list parameters are 400 problems naming the parameter",
          arguments: [
              ("state=bogus", "state"), ("state=", "state"), ("state=PENDING", "state"),
              ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=-1", "limit"), ("limit=ten", "limit"),
              ("index=x", "index"), ("index=-1", "index"), ("index=1.5", "index"),
              ("presenter=bad%20name!", "presenter"),
          ])
    func badParameters(query: String, parameter: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.get("/v1/alerts?\(query)")
            expectProblem(response, 400, parameter: parameter, type: "urn:alertd:problem:invalid-parameter")
        }
    }
}
