import Foundation
import HTTPTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs one tmux command with `posix_spawn` and a blocking `waitpid`, on the calling thread.
///
/// Not Foundation's `Process`: the tmux server that `new-session` forks keeps the signal mask it was spawned
/// with, and a server spawned with signals blocked never sees SIGCHLD or SIGTERM (so `kill-server` cannot end
/// it). Here the child starts with an empty mask and default signal actions. Output goes through files, not
/// pipes, because that server also inherits the client's descriptors, and a pipe would never see its end.
enum TmuxCommand {
    /// - Parameters:
    ///   - tmux: The tmux executable.
    ///   - arguments: Its arguments.
    ///   - scratch: A directory for the output files.
    /// - Returns: The exit status, standard output and standard error.
    static func run(_ tmux: String, _ arguments: [String], scratch: URL) throws
        -> (status: Int32, output: String, errors: String)
    {
        let name = UUID().uuidString
        let outputPath = scratch.appendingPathComponent("\(name).out").path
        let errorPath = scratch.appendingPathComponent("\(name).err").path
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        let pid = try Spawn.start(tmux, arguments, environment: environment, actions: &actions).get()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exitStatus = Spawn.exitCode(status)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (exitStatus, output, errors)
    }
}
