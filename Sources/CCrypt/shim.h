#ifndef AUTH_HANDLER_CCRYPT_SHIM_H
#define AUTH_HANDLER_CCRYPT_SHIM_H
#include <crypt.h>
#endif
