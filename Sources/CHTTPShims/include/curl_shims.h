#ifndef AUTH_HANDLER_CURL_SHIMS_H
#define AUTH_HANDLER_CURL_SHIMS_H
#include <curl/curl.h>
/// Typed wrappers of curl_easy_setopt / curl_easy_getinfo (variadic in C).
CURLcode shim_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode shim_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode shim_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode shim_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode shim_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// curl_easy_setopt for a `struct curl_slist *` (CURLOPT_HTTPHEADER and friends).
CURLcode shim_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *list);
/// curl_easy_setopt for a data callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION).
CURLcode shim_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback);
/// curl_easy_setopt for CURLOPT_READFUNCTION (an upload from memory: the SMTP client's message).
CURLcode shim_curl_easy_setopt_read_callback(CURL *handle, CURLoption option, curl_read_callback callback);
#endif
