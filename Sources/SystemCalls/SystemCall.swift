#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed, with its `errno`: says which call and why (`strerror`).
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call's name, such as `send`.
    public let call: String
    /// The `errno` it left; never `EINTR` (`retryingInterrupts` calls again instead).
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The call would have blocked (`EAGAIN`, `EWOULDBLOCK`): on a non-blocking descriptor, wait and call again.
    public var wouldBlock: Bool {
        errno == EAGAIN || errno == EWOULDBLOCK
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// Calls `body`, a system call that returns -1 and sets `errno` when it fails, again for as long as a signal
/// interrupts it (`EINTR`), and turns any other failure into a `SystemCallError` (swift-nio's
/// `syscall(blocking:)` in `NIOPosix/System.swift` does the same). Only for calls that may simply be made again
/// after `EINTR` (`read`, `write`, `send`, `recv`, `poll`, `accept`): not `close`, and not a `connect` underway.
/// - Parameters:
///   - call: the call's name, for the error.
///   - body: makes the call once.
/// - Returns: what the call returned, 0 or more.
@inline(__always)
public func retryingInterrupts<Result: FixedWidthInteger & SignedInteger>(
    _ call: String, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code != EINTR { throw SystemCallError(call: call, errno: code) }
    }
}
