import Foundation
import HTTPTestSupport
import Testing

/// The build tool that embeds openapi.yaml into AlertAPI, as SwiftPM runs it.
@Suite("embed-resource, the build tool behind EmbeddedOpenAPI", .spawnsProcesses)
struct EmbedResourceTests {
    @Test("an output that already holds the text is left untouched, so a no-op build does not recompile AlertAPI")
    func leavesAnUpToDateOutputAlone() async throws {
        let tool = BuiltProduct.url("embed-resource")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build first (swift build)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-resource-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("spec.yaml")
        let output = folder.appendingPathComponent("Embedded.swift")
        try "openapi: 3.1.0\n".write(to: input, atomically: false, encoding: .utf8)

        func embed() async throws -> (inode: UInt64, modified: Date, text: String) {
            let child = try ChildProcess(tool.path, [input.path, output.path, "Embedded"])
            #expect(await child.wait(timeout: 30) == 0, "\(child.standardError)")
            let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
            let inode = (attributes[.systemFileNumber] as? UInt64) ?? 0
            let modified = (attributes[.modificationDate] as? Date) ?? .distantPast
            return (inode, modified, try String(contentsOf: output, encoding: .utf8))
        }
        let first = try await embed()
        #expect(first.text.contains("openapi: 3.1.0") && first.text.contains("enum Embedded"))
        let again = try await embed()
        #expect(again.inode == first.inode && again.modified == first.modified, "rewritten with the same text")

        try "openapi: 3.1.1\n".write(to: input, atomically: false, encoding: .utf8)
        let changed = try await embed()
        #expect(changed.text.contains("openapi: 3.1.1"), "a changed input is embedded")
    }
}
