import Foundation
import SystemCalls
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `retryingInterrupts`, the one wrapper the transport, the log sink and the webhook client make system calls
/// through: a call a signal interrupts is made again, any other failure is a typed error naming the call.
@Suite("System calls made again after EINTR")
struct SystemCallTests {
    @Test("A read a signal interrupts (no SA_RESTART) is made again and returns the bytes written after it")
    func interruptedReadIsMadeAgain() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let (reader, writer) = (ends[0], ends[1])
        // SIGUSR2 with a handler that does nothing and no SA_RESTART: a blocked read fails with EINTR.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0
        var previous = sigaction()
        try #require(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        let shared = ReadWatch()
        typealias Outcome = Result<Int, SystemCallError>
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            Thread.detachNewThread {
                // The test runner's threads may block the signal; this one takes it.
                var signals = sigset_t()
                sigemptyset(&signals)
                sigaddset(&signals, SIGUSR2)
                pthread_sigmask(SIG_UNBLOCK, &signals, nil)
                shared.reader = pthread_self()
                let outcome = Result { () throws(SystemCallError) -> Int in
                    var byte: UInt8 = 0
                    return try retryingInterrupts("read") {
                        let count = read(reader, &byte, 1)
                        if count < 0, errno == EINTR { shared.interrupted() }
                        return count
                    }
                }
                continuation.resume(returning: outcome)
            }
            Thread.detachNewThread {
                // Interrupts the blocked read until one interruption is seen, then writes the byte it waits for.
                let deadline = Date().addingTimeInterval(10)
                while shared.interrupts == 0, Date() < deadline {
                    if let thread = shared.reader { pthread_kill(thread, SIGUSR2) }
                    usleep(20_000)
                }
                var byte: UInt8 = 42
                _ = write(writer, &byte, 1)
            }
        }
        #expect(try result.get() == 1, "the read returned the byte, not the interruption")
        #expect(shared.interrupts > 0, "a signal interrupted it at least once")
    }

    @Test("Another failure is a typed error with the call's name and the system's reason")
    func otherFailuresAreTyped() {
        let error = #expect(throws: SystemCallError.self) {
            var byte: UInt8 = 0
            _ = try retryingInterrupts("read") { read(-1, &byte, 1) }
        }
        #expect(error == SystemCallError(call: "read", errno: EBADF))
        #expect(error?.description == "read: Bad file descriptor")
        #expect(error?.wouldBlock == false)
        #expect(SystemCallError(call: "recv", errno: EAGAIN).wouldBlock)
    }
}

/// The reading thread, and how many times its read saw EINTR: shared by it and the signalling thread.
///
/// `@unchecked Sendable` invariant: `thread` and `count` are only touched with `lock` held.
private final class ReadWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var thread: pthread_t?
    private var count = 0

    var reader: pthread_t? {
        get { lock.withLock { thread } }
        set { lock.withLock { thread = newValue } }
    }

    var interrupts: Int { lock.withLock { count } }

    func interrupted() { lock.withLock { count += 1 } }
}
