import HTTPTestSupport
import JSON

extension WireResponse {
    /// The body parsed as JSON (`.null` when it is not JSON, which a check then notices).
    var json: JSONValue {
        (try? JSONParser.parse(body)) ?? .null
    }

    /// Whether the body is an `application/problem+json` problem.
    var isProblem: Bool { headers["content-type"]?.hasPrefix("application/problem+json") == true }
}
