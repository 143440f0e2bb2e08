@testable import AlertCore
import Foundation
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

    @Test("base64url encoding matches RFC 4648's test vectors")
    func base64URLVectors() {
        let vectors: [([UInt8], String)] = [
            (Array("".utf8), ""), (Array("f".utf8), "Zg"), (Array("fo".utf8), "Zm8"), (Array("foo".utf8), "Zm9v"),
            (Array("foob".utf8), "Zm9vYg"), (Array("fooba".utf8), "Zm9vYmE"), (Array("foobar".utf8), "Zm9vYmFy"),
            ([0xFB, 0xFF, 0xBF], "-_-_"), ([0xFB, 0xF0], "-_A"),
        ]
        for (bytes, encoded) in vectors {
            #expect(bytes.withUnsafeBytes { AlertID.base64URL($0) } == encoded)
        }
    }

    @Test("the table refuses a second alert with a taken id and keeps the first")
    func takenID() {
        func alert(_ sequence: UInt64) -> Alert {
            Alert(id: AlertID(rawValue: "same"), sequence: sequence, title: "T\(sequence)", message: "", style: .alert,
                  tag: 0, presenter: "root", animated: true, buttons: [], fields: [], createdAt: Date())
        }
        let table = AlertTable()
        #expect(table.insertNew(alert(1)))
        #expect(!table.insertNew(alert(2)))
        #expect(table.record(AlertID(rawValue: "same"))?.sequence == 1)
        #expect(table[2] == nil)
    }

    @Test("the table finds alerts by ids of any length, packed or not")
    func idLengths() {
        let table = AlertTable()
        let ids = ["", "a", String(repeating: "x", count: 22), String(repeating: "y", count: 23),
                   String(repeating: "z", count: 24), String(repeating: "é", count: 40)]
        func alert(_ text: String, _ sequence: Int) -> Alert {
            Alert(id: AlertID(rawValue: text), sequence: UInt64(sequence), title: text, message: "", style: .alert,
                  tag: 0, presenter: "root", animated: true, buttons: [], fields: [], createdAt: Date())
        }
        for (index, text) in ids.enumerated() {
            #expect(table.insertNew(alert(text, index + 1)))
            #expect(!table.insertNew(alert(text, index + 101)), "a second alert with the id \(text) must be refused")
        }
        for (index, text) in ids.enumerated() {
            #expect(table.record(AlertID(rawValue: text))?.sequence == UInt64(index + 1))
        }
        // Same bytes but a different length (trailing zero bytes) must not collide with a shorter id.
        #expect(table.record(AlertID(rawValue: "a\u{0}")) == nil)
        #expect(table.remove(3)?.id.rawValue == ids[2])
        #expect(table.record(AlertID(rawValue: ids[2])) == nil)
        #expect(table.remove(5)?.id.rawValue == ids[4])
        #expect(table.record(AlertID(rawValue: ids[4])) == nil)
    }

    @Test("ids compare by bytes: a canonically equivalent spelling is another id")
    func byteEquality() {
        #expect(AlertID(rawValue: "K") != AlertID(rawValue: "\u{212A}"))
        #expect(AlertID(rawValue: "abc") == AlertID(rawValue: String("xabc".dropFirst())))
        #expect(Set([AlertID(rawValue: "K"), AlertID(rawValue: "\u{212A}"), AlertID(rawValue: "K")]).count == 2)
    }

    @Test("description is the raw value")
    func description() {
        #expect(AlertID(rawValue: "abc").description == "abc")
    }
}
