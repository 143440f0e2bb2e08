@testable import AlertCore
import Testing

@Suite("AlertID")
struct AlertIDTests {
    @Test("random ids are 22 base64url characters and do not repeat")
    func randomShape() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<AlertID>()
        for _ in 0..<5000 {
            let id = AlertID.random()
            #expect(id.rawValue.count == 22)
            #expect(id.rawValue.allSatisfy(allowed.contains))
            #expect(!id.rawValue.hasPrefix("-"), "an id must not look like a command-line option")
            seen.insert(id)
        }
        #expect(seen.count == 5000)
    }

    @Test("every character position varies (the bits are random, not a counter)")
    func randomSpread() {
        let ids = (0..<200).map { _ in Array(AlertID.random().rawValue) }
        for position in 0..<21 {
            #expect(Set(ids.map { $0[position] }).count > 10)
        }
        // The last character carries 2 bits: 4 values then 4 zero bits.
        #expect(Set(ids.map { $0[21] }).isSubset(of: ["A", "Q", "g", "w"]))
    }

    @Test("description is the raw value")
    func description() {
        #expect(AlertID(rawValue: "abc").description == "abc")
    }
}
