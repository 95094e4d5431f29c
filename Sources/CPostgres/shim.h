#ifndef AUTH_HANDLER_CPOSTGRES_SHIM_H
#define AUTH_HANDLER_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
