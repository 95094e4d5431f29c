#ifndef AUTH_HANDLER_CCURL_SHIM_H
#define AUTH_HANDLER_CCURL_SHIM_H
#include <curl/curl.h>
#endif
