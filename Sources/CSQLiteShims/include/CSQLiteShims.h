#ifndef AUTH_HANDLER_SQLITE_SHIMS_H
#define AUTH_HANDLER_SQLITE_SHIMS_H
#include <sqlite3.h>

/// sqlite3_bind_text with SQLITE_TRANSIENT, a macro (a cast of -1 to a function pointer) Swift cannot import.
int shim_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length);
/// sqlite3_bind_blob with SQLITE_TRANSIENT.
int shim_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length);
#endif
