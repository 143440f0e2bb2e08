import BuildInfo
import Foundation
import MicroHTTP
import Testing

/// The libmicrohttpd alertd loads: named at start and in `/metrics`, and refused when older than the answers
/// docs/ERRORS.md lists were measured on.
@Suite("The libmicrohttpd loaded", .spawnsProcesses)
struct LibraryVersionTests {
    @Test("The start line and /metrics name the libmicrohttpd alertd loaded, and /metrics alertd's version")
    func named() async throws {
        let alertd = try await AlertdProcess.start()
        defer { alertd.send(SIGKILL) }
        let line = "alertd: transport: libmicrohttpd 0.9.75\n"
        #expect(await TestTime.until { alertd.standardOutput.contains(line) }, "\(alertd.standardOutput)")
        let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/metrics"), port: alertd.port)
        let metrics = PrometheusText(response.text)
        let info = #"alertd_build_info{version="\#(BuildInfo.version)",revision="\#(BuildInfo.revision)","#
            + #"libmicrohttpd="0.9.75"}"#
        #expect(metrics[info] == 1, "\(response.text)")
        #expect(HTTPServer.libraryVersion == "0.9.75")
    }

    @Test("alertd on a libmicrohttpd older than 0.9.75 refuses to start, saying which it found and which it needs")
    func olderRefused() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-old-mhd-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A libmicrohttpd that says it is 0.9.72 (Debian 11's): the loader lets the preloaded symbol win.
        let source = scratch.appendingPathComponent("old.c")
        try #"const char *MHD_get_version(void) { return "0.9.72"; }"#.write(to: source, atomically: true,
                                                                           encoding: .utf8)
        let library = scratch.appendingPathComponent("old.so").path
        let compiler = try ChildProcess("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", library, source.path])
        try #require(await compiler.wait(timeout: 60) == 0, "cc: \(compiler.standardError)")
        var environment = ["LD_PRELOAD": library]
        // In `make asan`'s build, AddressSanitizer's runtime would otherwise refuse a library loaded before it.
        environment["ASAN_OPTIONS"] = [ProcessInfo.processInfo.environment["ASAN_OPTIONS"], "verify_asan_link_order=0"]
            .compactMap { $0 }.joined(separator: ":")
        let outcome = try await AlertdProcess.run(["--host", "127.0.0.1", "--port", "0"], environment: environment)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(!outcome.standardOutput.contains("listening on"), "\(outcome.standardOutput)")
        #expect(outcome.standardError.contains(
            "alertd: libmicrohttpd 0.9.72 is loaded, and 0.9.75 or later is needed"), "\(outcome.standardError)")
    }
}
