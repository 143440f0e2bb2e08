import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `posix_spawn` with what every test child needs: an empty signal mask and default signal
/// actions (a child of a test thread would otherwise inherit blocked signals, and never see
/// SIGTERM or SIGCHLD), and its arguments and environment as C strings.
public enum Spawn {
    /// Starts `executable`; `actions` say where its standard streams go.
    /// - Returns: the child's pid, or the `posix_spawn` error number.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t
    ) -> Result<pid_t, SpawnError> {
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

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        return spawned == 0 ? .success(child) : .failure(SpawnError(executable: executable, number: spawned))
    }

    /// `posix_spawn` failed.
    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let number: Int32
        public var description: String { "cannot start \(executable): error \(number)" }
    }

    /// Decodes a `waitpid` status: the exit code, or 128 + the signal that ended the child.
    public static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
