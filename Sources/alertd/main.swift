import AlertServer
import Foundation
import MicroHTTP

// alertd: reads its configuration, starts the app (AlertServer builds it), serves until SIGTERM or SIGINT; SIGHUP
// reloads the tokens file; `alertd backup …` and `alertd restore …` copy a data dir's journal instead
// (JournalFileCommand).
signal(SIGPIPE, SIG_IGN)
if let verb = CommandLine.arguments.dropFirst().first.flatMap(JournalFileCommand.Verb.init(rawValue:)) {
    exit(JournalFileCommand.run(verb, Array(CommandLine.arguments.dropFirst(2)),
                                environment: ProcessInfo.processInfo.environment))
}
let command: AlertdCommand
do {
    command = try AlertdConfiguration.command(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("alertd: \(error)\n".utf8))
    exit(64)
}
AlertdConfiguration.warnAboutEnvironment(ProcessInfo.processInfo.environment)
switch command {
case .help(let usage):
    print(usage, terminator: "")
case .version(let line):
    print(line)
case .run(let configuration):
    let signals = Signals([SIGTERM, SIGINT, SIGHUP])
    let app: AlertdApp
    do {
        app = try AlertdApp(configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("alertd: \(error)\n".utf8))
        exit(1)
    }
    // No string interpolation in this top-level code before an `await`: Swift 6.3 leaks the string (LeakSanitizer).
    print("alertd listening on", app.url)
    if configuration.database != nil {
        print("alertd: clustered: alerts are kept in PostgreSQL, shared with every instance on it")
    } else if let directory = configuration.dataDirectory {
        print("alertd: durable: alerts are journaled in", directory)
    } else {
        print("alertd: memory only: alerts do not survive a restart (--data-dir DIR keeps them)")
    }
    print(configuration.accessLine)
    print("alertd: transport: libmicrohttpd", HTTPServer.libraryVersion)
    fflush(nil)
    var signal = await signals.next()
    while signal == SIGHUP {
        app.reloadTokens()
        signal = await signals.next()
    }
    print("alertd: received", signal == SIGTERM ? "SIGTERM," : "SIGINT,", "shutting down")
    fflush(nil)
    await app.shutdown()
    print("alertd: stopped")
}
