#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>

// Shims for what Swift cannot call: curses macros (stdscr in a reentrant build,
// COLOR_PAIR, the A_* attribute bits, mvwaddnwstr) and a flat way to set attributes.
// Prefixed `cncurses_`, like swift-nio's `CNIOLinux_` shims.

/// The standard screen (a macro in reentrant builds of ncurses, a global otherwise).
static inline WINDOW *cncurses_stdscr(void) { return stdscr; }

/// Starts curses on the process's terminal without exiting when TERM is unknown (as `initscr` would);
/// NULL on failure. (`stdout` and `stdin` are mutable globals Swift 6 does not let us touch.)
static inline SCREEN *cncurses_newterm(void) { return newterm(NULL, stdout, stdin); }

/// Columns a character takes on screen (2 for CJK, 0 for combining marks, -1 if not printable).
/// Declared here because glibc shows `wcwidth` only to X/Open builds.
extern int wcwidth(wchar_t c);
static inline int cncurses_wcwidth(wchar_t c) { return wcwidth(c); }

/// Rows and columns of the standard screen (`getmaxyx` is a macro).
static inline int cncurses_rows(void) { return getmaxy(stdscr); }
static inline int cncurses_columns(void) { return getmaxx(stdscr); }

/// Sets the attributes of the standard screen for the text drawn next.
/// `pair` 0 is the terminal's default colours.
static inline int cncurses_set_attributes(int bold, int dim, int reverse, int underline, short pair) {
    attr_t attributes = A_NORMAL;
    if (bold) attributes |= A_BOLD;
    if (dim) attributes |= A_DIM;
    if (reverse) attributes |= A_REVERSE;
    if (underline) attributes |= A_UNDERLINE;
    return wattr_set(stdscr, attributes, pair, NULL);
}

/// Draws `count` wide characters at row `y`, column `x` of the standard screen.
static inline int cncurses_put(int y, int x, const wchar_t *text, int count) {
    return mvwaddnwstr(stdscr, y, x, text, count);
}

#endif
