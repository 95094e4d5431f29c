#ifndef AUTH_HANDLER_CSQLITE_SHIM_H
#define AUTH_HANDLER_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
