import Foundation
import Testing

@testable import AlertAPI

@Suite("RFC3339")
struct RFC3339Tests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_796_031_268.123, "2026-11-30T09:34:28.123Z"),
        (1_796_031_268.0, "2026-11-30T09:34:28.000Z"),
        (1_709_164_800.5, "2024-02-29T00:00:00.500Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (-86_400.0, "1969-12-31T00:00:00.000Z"),
        (0.9996, "1970-01-01T00:00:01.000Z"),
        (0.0004, "1970-01-01T00:00:00.000Z"),
        (951_782_400.0, "2000-02-29T00:00:00.000Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
        (1e15, "9999-12-31T23:59:59.999Z"),
        (-62_167_219_200.0, "0000-01-01T00:00:00.000Z"),
        (-1e15, "0000-01-01T00:00:00.000Z"),
    ])
    func format(seconds: Double, expected: String) {
        #expect(RFC3339.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("formatting agrees with the C library's gmtime_r across years 0000 to 9999")
    func formatMatchesGmtime() {
        var generator = SystemRandomNumberGenerator()
        let instants: [Int64] = [-62_167_219_200, -1, 0, 86_399, 86_400, 951_782_399, 951_782_400, 253_402_300_799]
            + (0..<20_000).map { _ in Int64.random(in: -62_167_219_200...253_402_300_799, using: &generator) }
        for seconds in instants {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000Z", Int(parts.tm_year) + 1900,
                                  Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                                  Int(parts.tm_sec))
            let formatted = RFC3339.format(Date(timeIntervalSince1970: Double(seconds)))
            #expect(formatted == expected, "\(seconds)")
            if formatted != expected { break }
        }
    }

    @Test func formatsFoundationLimits() {
        #expect(RFC3339.format(.distantFuture) == "4001-01-01T00:00:00.000Z")
        // Foundation's distantPast is 0001-01-01 in the Julian calendar: two days earlier in the proleptic
        // Gregorian calendar RFC 3339 uses.
        #expect(RFC3339.format(.distantPast) == "0000-12-30T00:00:00.000Z")
    }

    @Test(arguments: [
        ("2026-11-30T09:34:28.123Z", 1_796_031_268.123),
        ("2026-11-30T09:34:28Z", 1_796_031_268),
        ("2026-11-30t09:34:28z", 1_796_031_268),
        ("2026-11-30T09:34:28.1Z", 1_796_031_268.1),
        ("2026-11-30T09:34:28.123456789Z", 1_796_031_268.123456789),
        ("2026-11-30T09:34:28.1234567891234Z", 1_796_031_268.123456789),
        ("2026-11-30T11:34:28+02:00", 1_796_031_268),
        ("2026-11-30T04:04:28.123-05:30", 1_796_031_268.123),
        ("2026-11-30T09:34:28-00:00", 1_796_031_268),
        ("2026-12-01T09:33:28+23:59", 1_796_031_268),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2016-12-31T23:59:60Z", 1_483_228_800),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999Z", -0.001),
        ("0000-01-01T00:00:00Z", -62_167_219_200),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
    ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "",
        "2026-11-30",
        "2026-11-30T09:34:28",
        "2026-11-30T09:34Z",
        "2026-11-30 09:34:28Z",
        "2026-11-30T09:34:28.Z",
        "2026-11-30T09:34:28.123",
        "2026-11-30T09:34:28,123Z",
        "2026-11-30T09:34:28Z ",
        " 2026-11-30T09:34:28Z",
        "2026-11-30T09:34:28ZZ",
        "2026-11-30T09:34:28+02",
        "2026-11-30T09:34:28+0200",
        "2026-11-30T09:34:28+2:00",
        "2026-11-30T09:34:28+24:00",
        "2026-11-30T09:34:28+02:60",
        "2026-11-30T09:34:28+02:00x",
        "2026-00-10T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-11-00T00:00:00Z",
        "2026-11-31T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2026-11-30T24:00:00Z",
        "2026-11-30T09:60:00Z",
        "2026-11-30T09:34:61Z",
        "2026-1-30T09:34:28Z",
        "26-11-30T09:34:28Z",
        "+2026-11-30T09:34:28Z",
        "2026-11-3OT09:34:28Z",
        "٢٠٢٦-11-30T09:34:28Z",
        "2026/11/30T09:34:28Z",
    ])
    func rejects(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func formatThenParseRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let milliseconds = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.format(date)
            let parsed = try #require(RFC3339.parse(text))
            #expect(RFC3339.format(parsed) == text)
            #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-3)
        }
    }

    @Test func nowRoundTrips() throws {
        let now = Date()
        let parsed = try #require(RFC3339.parse(RFC3339.format(now)))
        #expect(abs(parsed.timeIntervalSince(now)) <= 0.0005 + 1e-6)
    }
}
