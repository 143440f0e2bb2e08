import AlertAPI
import Foundation

// alertd: reads its configuration, starts the app, serves until SIGTERM or SIGINT; `alertd backup …` backs up a
// data dir instead (BackupCommand).
signal(SIGPIPE, SIG_IGN)
if CommandLine.arguments.dropFirst().first == "backup" {
    exit(BackupCommand.run(Array(CommandLine.arguments.dropFirst(2)), environment: ProcessInfo.processInfo.environment))
}
let command: AlertdCommand
do {
    command = try AlertdConfiguration.command(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("alertd: \(error)\n".utf8))
    exit(64)
}
switch command {
case .help(let usage):
    print(usage, terminator: "")
case .run(let configuration):
    let signals = Signals([SIGTERM, SIGINT])
    let app: AlertdApp
    do {
        app = try AlertdApp(configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("alertd: \(error)\n".utf8))
        exit(1)
    }
    // No string interpolation in this top-level code before an `await`: Swift 6.3 leaks the string (LeakSanitizer).
    print("alertd listening on", app.url)
    fflush(nil)
    let signal = await signals.first()
    print("alertd: received", signal == SIGTERM ? "SIGTERM," : "SIGINT,", "shutting down")
    fflush(nil)
    await app.shutdown()
    print("alertd: stopped")
}
