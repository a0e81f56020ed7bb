#include <sqlite3.h>

/// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS), which take one process-wide
/// mutex around every allocation SQLite makes. Escrow reads none of those statistics, and two
/// threads inside SQLite at once (the daemon's readers and writer, a new home's two databases)
/// queued on that mutex. Only has an effect before SQLite initialises; returns SQLITE_OK when it
/// did, SQLITE_MISUSE when SQLite was already in use. A function because `sqlite3_config` is
/// variadic, which Swift cannot call.
static inline int escrow_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
