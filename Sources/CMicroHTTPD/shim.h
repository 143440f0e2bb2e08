#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#ifdef __linux__
#include <linux/filter.h>
#endif

/// MHD_start_daemon is variadic, which Swift cannot call. This shim passes the
/// completion callback explicitly and every other option through MHD_OPTION_ARRAY
/// (the array must end with an MHD_OPTION_END item).
/// The connection callback (accepted, closed) and the URI log callback (request line read)
/// share `completed_context`.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handler_context,
    MHD_RequestCompletedCallback completed,
    MHD_NotifyConnectionCallback connection_notify,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection),
    void *completed_context,
    struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notify, completed_context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, completed_context,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/// The socket of a connection, or -1.
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// What the connection callback stored in `*socket_context`, or NULL.
static inline void *CMicroHTTPD_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The port the daemon is bound to (useful after binding port 0), or 0 if unknown.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// How many connections the daemon holds right now (suspended ones included).
static inline unsigned int CMicroHTTPD_current_connections(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Makes a listening socket drop every packet that would start a connection (SYNs, handshake
/// ACKs), so no connection joins its queue any more: clients retry their SYN and, once the
/// socket is closed, are refused before they send anything. Linux only; elsewhere does nothing.
static inline int CMicroHTTPD_stop_handshakes(int listener)
{
#ifdef __linux__
    struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog program = { .len = 1, .filter = &drop };
    return setsockopt(listener, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program);
#else
    (void) listener;
    return 0;
#endif
}

#ifdef __linux__
/* glibc declares accept4 only under _GNU_SOURCE, too late to define here. */
int accept4(int socket, struct sockaddr *address, socklen_t *length, int flags);
#else
#include <fcntl.h>
#endif

/// `accept`, with the new socket closed on exec (so a child process never inherits a client's connection).
static inline int CMicroHTTPD_accept_cloexec(int listener, struct sockaddr *address, socklen_t *length)
{
#ifdef __linux__
    return accept4(listener, address, length, SOCK_CLOEXEC);
#else
    int client = accept(listener, address, length);
    if (client >= 0) (void) fcntl(client, F_SETFD, FD_CLOEXEC);
    return client;
#endif
}

/// Adds one key/value pair's size (plus 4 for ": " and CRLF, or "&" and "=") to the size_t at cls.
static inline enum MHD_Result CMicroHTTPD_add_size(void *cls, enum MHD_ValueKind kind, const char *key,
                                                   size_t key_size, const char *value, size_t value_size)
{
    (void) kind; (void) key; (void) value;
    *(size_t *) cls += key_size + value_size + 4;
    return MHD_YES;
}

/// The total size of a connection's values of one kind (headers, query arguments), as on the wire.
static inline size_t CMicroHTTPD_values_size(struct MHD_Connection *connection, enum MHD_ValueKind kind)
{
    size_t total = 0;
    MHD_get_connection_values_n(connection, kind, CMicroHTTPD_add_size, &total);
    return total;
}

#endif
