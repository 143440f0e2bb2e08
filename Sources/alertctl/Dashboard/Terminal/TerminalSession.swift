import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Curses on a dedicated thread: the only thread that touches the terminal.
///
/// The thread blocks in `poll` on the keyboard and a wake-up pipe (never on Swift's cooperative pool), turns what
/// it reads into `Input` for the app's event loop, and draws the latest `Canvas` handed to `show(_:)`.
final class TerminalSession: Sendable {
    /// What the terminal tells the app.
    enum Input: Sendable {
        /// The terminal is ours: its size and the glyphs it can draw.
        case ready(rows: Int, columns: Int, glyphs: Glyphs)
        case key(Key)
        case resized(rows: Int, columns: Int)
        /// The terminal could not be taken over; the session is over.
        case failed(String)
    }

    private struct Mailbox {
        var canvas: Canvas?
        var repaint = false
        var bell = false
        var stopping = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let mailbox = Lock(Mailbox())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts the thread; it takes over the terminal and reports through `onInput` (called on that thread).
    /// - Parameters:
    ///   - ascii: draw with ASCII only.
    ///   - hyperlinks: wrap linked text in OSC 8 hyperlinks.
    ///   - onInput: receives every `Input`; must not block.
    init(ascii: Bool, hyperlinks: Bool = false, onInput: @escaping @Sendable (Input) -> Void) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in
            run(ascii: ascii, hyperlinks: hyperlinks, onInput: onInput)
        }
        thread.name = "alertctl-terminal"
        thread.start()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Draws `canvas` as soon as the terminal thread wakes; a newer canvas replaces one not yet drawn.
    func show(_ canvas: Canvas) {
        mailbox.withLock { $0.canvas = canvas }
        wake()
    }

    /// Repaints the whole screen on the next draw (Ctrl-L).
    func repaint() {
        mailbox.withLock { $0.repaint = true }
        wake()
    }

    /// Rings the terminal's bell on the next draw.
    func ring() {
        mailbox.withLock { $0.bell = true }
        wake()
    }

    /// Gives the terminal back and waits until it has been restored.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = mailbox.withLock { box in
                box.stopping = true
                if !box.finished { box.waiters.append(continuation) }
                return box.finished
            }
            if finished { continuation.resume() } else { wake() }
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: the terminal thread

    private func run(ascii: Bool, hyperlinks: Bool, onInput: @Sendable (Input) -> Void) {
        let terminal = Terminal()
        terminal.hyperlinks = hyperlinks
        do {
            try terminal.start(ascii: ascii)
            let size = terminal.size
            onInput(.ready(rows: size.rows, columns: size.columns, glyphs: terminal.glyphs))
            loop(terminal, onInput: onInput)
            terminal.stop()
        } catch {
            terminal.stop()
            onInput(.failed(error.description))
        }
        let waiters = mailbox.withLock { box in
            box.finished = true
            defer { box.waiters = [] }
            return box.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func loop(_ terminal: Terminal, onInput: @Sendable (Input) -> Void) {
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var shown: Canvas?
        while true {
            // Keys first (also after a time-out: curses reports a resize only when asked for input).
            readLoop: while true {
                switch terminal.read() {
                case .nothing:
                    break readLoop
                case .key(let key):
                    onInput(.key(key))
                case .resized:
                    let size = terminal.size
                    onInput(.resized(rows: size.rows, columns: size.columns))
                }
            }
            let (canvas, repaint, bell, stopping) = mailbox.withLock { box in
                defer {
                    box.canvas = nil
                    box.repaint = false
                    box.bell = false
                }
                return (box.canvas, box.repaint, box.bell, box.stopping)
            }
            if stopping { return }
            if bell { terminal.bell() }
            if let canvas { shown = canvas }
            if let shown, canvas != nil || repaint { terminal.draw(shown, repaint: repaint) }
            // SIGWINCH may land on another thread and not interrupt this poll: look again every 200 ms.
            _ = poll(&descriptors, nfds_t(descriptors.count), 200)
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            if descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                // The terminal went away (the window was closed): treat it as Ctrl-C.
                onInput(.key(.control("c")))
                return
            }
        }
    }
}
