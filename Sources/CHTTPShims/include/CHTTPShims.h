#ifndef AUTH_HANDLER_CHTTPSHIMS_H
#define AUTH_HANDLER_CHTTPSHIMS_H
/// Typed, non-variadic wrappers for the HTTP layer's variadic C APIs and for macros Swift cannot import:
/// libcurl's setopt/getinfo and libmicrohttpd's start and constants. One header per library.
#include "curl_shims.h"
#include "mhd_shims.h"
#endif
