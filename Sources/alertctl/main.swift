import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status = await Alertctl.main(arguments, environment: ProcessInfo.processInfo.environment)
exit(status)
