#ifndef AUTH_HANDLER_MHD_SHIMS_H
#define AUTH_HANDLER_MHD_SHIMS_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
/// MHD_YES / MHD_NO as typed constants (macros Swift does not import cleanly).
extern const enum MHD_Result shim_mhd_yes;
extern const enum MHD_Result shim_mhd_no;

/// The URI-log callback type (MHD_OPTION_URI_LOG_CALLBACK), named so Swift can pass a closure.
typedef void *(*shim_mhd_uri_log_callback)(void *context, const char *uri, struct MHD_Connection *connection);

/// Everything shim_mhd_start_daemon passes to the variadic MHD_start_daemon, as one typed struct.
struct shim_mhd_daemon_config {
    /// MHD_FLAG bits (MHD_USE_...).
    unsigned int flags;
    /// An already bound and listening socket MHD adopts (MHD_OPTION_LISTEN_SOCKET).
    int listen_fd;
    /// MHD_OPTION_THREAD_POOL_SIZE; 0 or 1 means the single internal polling thread.
    unsigned int thread_pool_size;
    /// MHD_OPTION_CONNECTION_LIMIT.
    unsigned int connection_limit;
    /// MHD_OPTION_PER_IP_CONNECTION_LIMIT: simultaneous connections from one IP address; 0 means no limit.
    unsigned int per_ip_connection_limit;
    /// MHD_OPTION_CONNECTION_TIMEOUT, in seconds; 0 disables it.
    unsigned int connection_timeout_seconds;
    /// MHD_OPTION_CONNECTION_MEMORY_LIMIT, in bytes: the per-connection pool the headers must fit in.
    size_t connection_memory_limit;
    /// MHD_OPTION_STRICT_FOR_CLIENT: 1 is strict about the protocol, 0 the default, -1 as tolerant as possible.
    int strict_for_client;
    MHD_AccessHandlerCallback access_handler;
    void *access_handler_context;
    MHD_RequestCompletedCallback request_completed;
    void *request_completed_context;
    shim_mhd_uri_log_callback uri_log;
    void *uri_log_context;
    /// MHD_OPTION_NOTIFY_CONNECTION: called when a connection starts and when it is closed.
    MHD_NotifyConnectionCallback connection_notify;
    void *connection_notify_context;
};

/// MHD_start_daemon with its variadic options built from `config` (via MHD_OPTION_ARRAY); NULL on failure.
struct MHD_Daemon *shim_mhd_start_daemon(const struct shim_mhd_daemon_config *config);

/// MHD_create_response_from_buffer with MHD_RESPMEM_MUST_COPY (the bytes are copied before returning).
struct MHD_Response *shim_mhd_create_response_copying(const void *bytes, size_t length);

/// The client's socket address (MHD_get_connection_info is variadic); NULL when unknown.
const struct sockaddr *shim_mhd_connection_client_address(struct MHD_Connection *connection);

/// The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD); -1 when unknown. MHD owns and closes it.
int shim_mhd_connection_fd(struct MHD_Connection *connection);
#endif
