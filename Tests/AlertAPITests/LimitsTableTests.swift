@testable import AlertAPI
import Foundation
import Testing

/// The defaults the documents state are the ones `alertd --help` states (and the code applies).
@Suite("Documented defaults")
struct LimitsTableTests {
    /// `flag → default` from `--help`'s "(default N)", for numeric defaults.
    static let helpDefaults: [String: Int] = AlertdConfiguration.usage.split(separator: "\n")
        .reduce(into: [:]) { defaults, line in
            guard let flag = line.split(separator: " ").first, flag.hasPrefix("--"),
                  let range = line.range(of: #"\(default [0-9]+\)"#, options: .regularExpression),
                  let value = Int(line[range].dropFirst("(default ".count).dropLast())
            else { return }
            defaults[String(flag)] = value
        }

    /// `flag → default` from a Markdown table whose rows name a flag in backquotes and a default
    /// number (commas allowed, `KiB` counted in bytes): openapi.yaml's limits table, the configuration table of
    /// docs/OPERATIONS.md.
    static func tableDefaults(_ text: String) -> [String: Int] {
        text.split(separator: "\n").reduce(into: [:]) { defaults, line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.trimmingCharacters(in: .whitespaces).hasPrefix("|"), cells.count >= 3,
                  let flag = cells.lazy.compactMap({ cell in
                      cell.range(of: #"^`--[a-z-]+`"#, options: .regularExpression).map { String(cell[$0].dropFirst().dropLast()) }
                  }).first,
                  let (number, unit) = cells.lazy.compactMap({ cell -> (Int, Int)? in
                      guard let range = cell.range(of: #"^(every )?[0-9][0-9,]*"#, options: .regularExpression),
                            let number = Int(cell[range].filter(\.isNumber)) else { return nil }
                      return (number, cell[range.upperBound...].hasPrefix(" KiB") ? 1024 : 1)
                  }).first
            else { return }
            defaults[flag] = number * unit
        }
    }

    @Test("openapi.yaml's limits table and docs/OPERATIONS.md's configuration table say what --help says")
    func tablesAgreeWithHelp() throws {
        #expect(Self.helpDefaults["--connection-limit"] == AlertdConfiguration().http.connectionLimit)
        let spec = Self.tableDefaults(String(decoding: try repositoryOpenAPI(), as: UTF8.self))
        #expect(spec.count >= 6, "\(spec)")
        #expect(spec["--connection-limit"] == 16_384)
        let operations = Self.tableDefaults(
            try String(contentsOf: repositoryRoot.appending(path: "docs/OPERATIONS.md"), encoding: .utf8))
        #expect(operations.count >= 15, "\(operations)")
        for (name, table) in [("openapi.yaml", spec), ("docs/OPERATIONS.md", operations)] {
            for (flag, value) in table {
                #expect(Self.helpDefaults[flag] == value, "\(name): \(flag) \(value), --help: \(Self.helpDefaults[flag] ?? -1)")
            }
        }
    }
}

/// The repository's top-level directory.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
