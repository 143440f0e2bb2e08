@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing

/// A body with thousands of mistakes gets a short 422: the first 32 listed, then how many more.
@Suite("Validation errors are capped")
struct ValidationLimitTests {
    @Test("a 60 KB body of unknown members gets a 422 listing 32 and one entry saying how many more")
    func capped() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let members = (0..<6300).map { #""m\#($0)":0"# }.joined(separator: ",")
            let body = "{" + members + "}"
            #expect(body.utf8.count > 60_000 && body.utf8.count < 65_536)
            let response = try await server.post("/v1/alerts", body)
            let problem = expectProblem(response, 422, type: "urn:alertd:problem:validation-failed")
            let errors = problem["errors"]?.arrayValue ?? []
            #expect(errors.count == 33)
            #expect(errors.first?["pointer"]?.stringValue == "/m0")
            #expect(errors.last?["pointer"]?.stringValue == "")
            #expect(errors.last?["detail"]?.stringValue == "6268 more problems not listed (only the first 32 are)")
            #expect(problem["detail"]?.stringValue == "6300 problems; see errors")
            #expect(response.body.count < 8192, "\(response.body.count) bytes")
            #expect(try await server.listIDs("state=all").isEmpty)
        }
    }

    @Test("32 problems are all listed; from 33 on, 32 and one entry counting the rest")
    func boundary() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            for (count, last) in [(32, "/m31"), (33, "1 more problem not listed"), (34, "2 more problems not listed")] {
                let body = "{" + (0..<count).map { #""m\#($0)":0"# }.joined(separator: ",") + "}"
                let errors = try await server.post("/v1/alerts", body).json["errors"]?.arrayValue ?? []
                #expect(errors.count == min(count, 33), "\(count) problems")
                let entry = errors.last
                let named = entry?["pointer"]?.stringValue == last
                #expect(named || entry?["detail"]?.stringValue?.hasPrefix(last) == true,
                        "\(count) problems: \(entry.map { "\($0)" } ?? "none")")
            }
        }
    }
}
