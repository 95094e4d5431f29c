#ifndef AUTH_HANDLER_CIDN2_SHIM_H
#define AUTH_HANDLER_CIDN2_SHIM_H
#include <idn2.h>
#endif
