/* What baseline.c and durable.c share: the daemon's flags and options (alertd's), a small JSON response queued from a
 * static buffer, and a suffix test. */
#ifndef BENCH_BASELINE_COMMON_H
#define BENCH_BASELINE_COMMON_H
#include <microhttpd.h>
#include <string.h>

/* The flags and options both servers start libmicrohttpd with, written once so that they stay the same. */
#define BASELINE_FLAGS (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC)
#define BASELINE_OPTIONS(limit, threads)                                  \
    MHD_OPTION_CONNECTION_LIMIT, (limit),                                 \
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),              \
    MHD_OPTION_CONNECTION_TIMEOUT, 30u,                                   \
    MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,                                \
    MHD_OPTION_THREAD_POOL_SIZE, (threads)

static inline enum MHD_Result queue_json(struct MHD_Connection *connection, unsigned int status,
                                         const char *body, size_t length)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

static inline int ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && memcmp(text + n - m, suffix, m) == 0;
}
#endif
