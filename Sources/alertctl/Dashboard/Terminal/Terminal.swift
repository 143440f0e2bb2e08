import CNCurses

#if canImport(Glibc)
import Glibc
#endif

/// The one type that calls curses. Curses is not thread-safe: a `Terminal` lives on `TerminalSession`'s thread
/// and is used only there.
final class Terminal {
    /// Why the terminal could not be taken over.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Unicode frames and masks when the locale is UTF-8, else ASCII.
    private(set) var glyphs: Glyphs = .ascii
    private var screen: OpaquePointer?
    private var cursorVisible = true
    /// Whether linked text is wrapped in OSC 8 hyperlink sequences.
    var hyperlinks = false

    /// Rows and columns of the screen.
    var size: (rows: Int, columns: Int) { (Int(cncurses_rows()), Int(cncurses_columns())) }

    /// Takes over the terminal: the user's locale (for wide characters), cbreak, no echo, keypad decoding,
    /// non-blocking reads, a short Esc delay, the terminal's own background, hidden cursor.
    /// - Parameter ascii: draw with ASCII only, whatever the locale.
    func start(ascii: Bool) throws(StartError) {
        setlocale(LC_ALL, "")
        // A C locale is common where LANG is unset (containers, `ssh -T`); curses then cannot draw or read
        // anything but ASCII. Modern terminals speak UTF-8, so try C.UTF-8 for the character type.
        if !Self.localeIsUTF8 { setlocale(LC_CTYPE, "C.UTF-8") }
        glyphs = Self.localeIsUTF8 && !ascii ? .unicode : .ascii
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw StartError(description: "needs a terminal (stdin and stdout must be a tty)")
        }
        guard let screen = cncurses_newterm() else {
            let name = getenv("TERM").map { String(cString: $0) } ?? "(unset)"
            throw StartError(description: "cannot use the terminal type TERM=\(name)")
        }
        self.screen = screen
        set_term(screen)
        cbreak()
        noecho()
        nonl()
        keypad(cncurses_stdscr(), true)
        nodelay(cncurses_stdscr(), true)
        set_escdelay(25)
        showCursor(false)
        if has_colors() {
            start_color()
            use_default_colors()
            let colors: [TextStyle.Color: Int32] = [.red: COLOR_RED, .green: COLOR_GREEN, .yellow: COLOR_YELLOW,
                                                    .cyan: COLOR_CYAN]
            for (role, color) in colors {
                init_pair(role.rawValue, Int16(color), -1)
            }
        }
    }

    /// Gives the terminal back as it was (main screen, echo, cursor).
    func stop() {
        guard let screen else { return }
        showCursor(true)
        endwin()
        delscreen(screen)
        self.screen = nil
    }

    /// Draws `canvas` in place of what is on screen; curses sends only the cells that changed.
    /// - Parameter repaint: repaint every cell (after the screen was garbled).
    func draw(_ canvas: Canvas, repaint: Bool = false) {
        let window = cncurses_stdscr()
        werase(window)
        for span in canvas.spans {
            let style = span.style
            cncurses_set_attributes(
                style.bold ? 1 : 0, style.dim ? 1 : 0, style.reverse ? 1 : 0, style.underline ? 1 : 0,
                style.color.rawValue)
            let characters = span.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            _ = characters.withUnsafeBufferPointer { buffer in
                cncurses_put(Int32(span.row), Int32(span.column), buffer.baseAddress, Int32(buffer.count))
            }
        }
        cncurses_set_attributes(0, 0, 0, 0, 0)
        if let cursor = canvas.cursor {
            showCursor(true)
            wmove(window, Int32(cursor.row), Int32(cursor.column))
        } else {
            showCursor(false)
        }
        if repaint { redrawwin(window) }
        wnoutrefresh(window)
        doupdate()
        if hyperlinks { drawLinks(canvas) }
    }

    /// Rings the terminal's bell (or flashes, where it has no bell).
    func bell() {
        beep()
    }

    /// Writes each linked span again over itself, the same characters, inside an OSC 8 hyperlink, so a click
    /// opens it and a copy takes the whole URL. Curses does not know these sequences, so they go straight to the
    /// terminal after its update, between saving and restoring the cursor; curses' idea of the screen stays true.
    private func drawLinks(_ canvas: Canvas) {
        var output = ""
        for span in canvas.spans {
            guard let link = span.link, Self.isSafeLink(link) else { continue }
            output += "\u{1B}7\u{1B}[\(span.row + 1);\(span.column + 1)H"
            output += "\u{1B}]8;;\(link)\u{1B}\\\(span.text)\u{1B}]8;;\u{1B}\\\u{1B}8"
        }
        guard !output.isEmpty else { return }
        // Curses flushed its own output in `doupdate`; these bytes go after it, unbuffered.
        var bytes = Array(output.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// A link may hold no control characters (which would end or break the escape sequence).
    private static func isSafeLink(_ link: String) -> Bool {
        !link.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
    }

    /// Whether the terminal understands OSC 8 hyperlinks: `ALERTCTL_HYPERLINKS` (`on`/`off`) decides when set;
    /// otherwise terminals known to: iTerm2, WezTerm, kitty, GNOME Terminal and other VTE ones, Windows
    /// Terminal, VS Code, Ghostty. Inside tmux or screen only when forced (tmux 3.3 and screen drop them).
    static func supportsHyperlinks(_ environment: [String: String]) -> Bool {
        switch environment["ALERTCTL_HYPERLINKS"]?.lowercased() {
        case "on", "1", "yes": return true
        case "off", "0", "no": return false
        default: break
        }
        if environment["TMUX"] != nil || environment["STY"] != nil { return false }
        if let program = environment["TERM_PROGRAM"],
           ["iTerm.app", "WezTerm", "vscode", "ghostty"].contains(program) { return true }
        if environment["KITTY_WINDOW_ID"] != nil || environment["WT_SESSION"] != nil { return true }
        if let vte = environment["VTE_VERSION"].flatMap(Int.init), vte >= 5000 { return true }
        return false
    }

    /// What `read()` found.
    enum Read {
        /// No input is waiting.
        case nothing
        case key(Key)
        /// The terminal changed size; `size` has the new one.
        case resized
    }

    /// The next key typed, a resize, or nothing; never blocks.
    func read() -> Read {
        var character: wint_t = 0
        switch wget_wch(cncurses_stdscr(), &character) {
        case OK:
            return .key(Self.key(forCharacter: character))
        case KEY_CODE_YES:
            let code = Int32(bitPattern: character)
            return code == KEY_RESIZE ? .resized : .key(Self.key(forCode: code))
        default:
            return .nothing
        }
    }

    private func showCursor(_ visible: Bool) {
        guard visible != cursorVisible else { return }
        curs_set(visible ? 1 : 0)
        cursorVisible = visible
    }

    private static var localeIsUTF8: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).lowercased()
        return name == "utf-8" || name == "utf8"
    }

    private static func key(forCharacter character: wint_t) -> Key {
        switch character {
        case 10, 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(UnicodeScalar(UInt8(character) + 96)))
        case 0..<32: return .other(Int32(character))
        default: return UnicodeScalar(UInt32(character)).map { .character(Character($0)) } ?? .other(-1)
        }
    }

    private static func key(forCode code: Int32) -> Key {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        default: return .other(code)
        }
    }
}
