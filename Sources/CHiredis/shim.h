#ifndef AUTH_HANDLER_CHIREDIS_SHIM_H
#define AUTH_HANDLER_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#endif
