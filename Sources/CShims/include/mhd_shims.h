#ifndef AUTH_HANDLER_MHD_SHIMS_H
#define AUTH_HANDLER_MHD_SHIMS_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
/// MHD_YES / MHD_NO as typed constants (macros Swift does not import cleanly).
extern const enum MHD_Result shim_mhd_yes;
extern const enum MHD_Result shim_mhd_no;
#endif
