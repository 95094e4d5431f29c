#ifndef AUTH_HANDLER_CSHIMS_H
#define AUTH_HANDLER_CSHIMS_H
/// The only C we write: typed, non-variadic wrappers for variadic C APIs and for macros that Swift
/// cannot import. One header per library.
#include "curl_shims.h"
#include "mhd_shims.h"
#include "process_shims.h"
#include "sqlite_shims.h"
#endif
