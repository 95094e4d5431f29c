#include "mhd_shims.h"

const enum MHD_Result shim_mhd_yes = MHD_YES;
const enum MHD_Result shim_mhd_no = MHD_NO;

struct MHD_Daemon *shim_mhd_start_daemon(const struct shim_mhd_daemon_config *config) {
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_LISTEN_SOCKET, (intptr_t)config->listen_fd, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)config->connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)config->per_ip_connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)config->connection_timeout_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)config->connection_memory_limit, NULL},
        {MHD_OPTION_STRICT_FOR_CLIENT, (intptr_t)config->strict_for_client, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)config->request_completed, config->request_completed_context},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)config->uri_log, config->uri_log_context},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)config->connection_notify, config->connection_notify_context},
        /* Only passed when > 1: a pool of one is refused rather than treated as "no pool". */
        {config->thread_pool_size > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
         (intptr_t)config->thread_pool_size, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    /* Port 0: ignored when MHD_OPTION_LISTEN_SOCKET supplies the socket. */
    return MHD_start_daemon(config->flags, 0, NULL, NULL, config->access_handler, config->access_handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

struct MHD_Response *shim_mhd_create_response_copying(const void *bytes, size_t length) {
    return MHD_create_response_from_buffer(length, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

const struct sockaddr *shim_mhd_connection_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

int shim_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
