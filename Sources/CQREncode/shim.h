#ifndef AUTH_HANDLER_CQRENCODE_SHIM_H
#define AUTH_HANDLER_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
