import Foundation
import HTTPTestSupport

/// Alerts at the contract's limits, for tests of what a 1 MiB page of `GET /v1/alerts` holds.
public enum LargestAlert {
    /// An alert at the contract's limits, about 19 KB of JSON (about 54 fill a 1 MiB page): a 4,096-character
    /// message, 16 buttons of 256 characters, 8 fields of 1,024 characters of text and 256 of placeholder, titled
    /// `large NUMBER`.
    public static func json(_ number: Int) -> String {
        let buttons = (0..<16).map { #""\#(String(format: "%03d", $0))\#(String(repeating: "b", count: 253))""# }
        let field = #"{"text":"\#(String(repeating: "t", count: 1024))","placeholder":"\#(String(repeating: "p", count: 256))"}"#
        return #"{"title":"large \#(number)","message":"\#(String(repeating: "m", count: 4096))","#
            + #""buttons":[\#(buttons.joined(separator: ","))],"fields":[\#(Array(repeating: field, count: 8).joined(separator: ","))]}"#
    }

    /// Alerts enough for three 1 MiB pages and a few more.
    public static let threePages = 120

    /// Creates `count` such alerts on the alertd at `port` over HTTP, `large 0` first.
    /// - Returns: Their ids, oldest first.
    public static func create(_ count: Int, port: Int) async throws -> [String] {
        var ids: [String] = []
        for number in 0..<count {
            let response = try await RawHTTP.exchange(
                RawHTTP.request("POST", "/v1/alerts", body: Array(json(number).utf8)), port: port)
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            guard response.status == 201, let id = object?["id"] as? String else {
                throw RawHTTPError(description: "creating large \(number): \(response)")
            }
            ids.append(id)
        }
        return ids
    }
}
