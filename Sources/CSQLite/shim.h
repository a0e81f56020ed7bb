#include <sqlite3.h>
#include <stddef.h>

/// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS), which take one process-wide
/// mutex around every allocation SQLite makes. Escrow reads none of those statistics, and two
/// threads inside SQLite at once (the daemon's readers and writer, a new home's two databases)
/// queued on that mutex. Only has an effect before SQLite initialises; returns SQLITE_OK when it
/// did, SQLITE_MISUSE when SQLite was already in use. A function because `sqlite3_config` is
/// variadic, which Swift cannot call.
static inline int escrow_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// glibc's memmem: the first occurrence of a byte string in another, in time linear in both
/// lengths (two-way search). The guarded connection's `instr` and `replace` use it. Declared here
/// because <string.h> shows it only under _GNU_SOURCE, which Swift's Glibc module is built without.
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);
