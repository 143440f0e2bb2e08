import Foundation

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

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        let argv = ([tmux] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw AlertctlTestError("cannot start \(tmux): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (exitStatus, output, errors)
    }
}
