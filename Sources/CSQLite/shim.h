#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// Shims for what Swift cannot call: SQLITE_TRANSIENT is a macro that casts -1 to a function pointer.
// Prefixed `CSQLite_`, like swift-nio's `CNIOLinux_` shims.

/// Binds UTF-8 text that SQLite copies before returning (SQLITE_TRANSIENT).
static inline int CSQLite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// Stops SQLite counting its memory use, which takes a process-wide mutex around every allocation. Must run
/// before SQLite initializes (before the first connection opens); later it returns SQLITE_MISUSE and changes
/// nothing. (sqlite3_config is variadic.)
static inline int CSQLite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Whether closing the last connection to a WAL database checkpoints it and deletes the log (on: `off` 0): off while
/// a journal is checked at open, so that a refused one keeps its log as it was. (sqlite3_db_config is variadic.)
static inline int CSQLite_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on ? 0 : 1, (int *)0);
}

#endif
