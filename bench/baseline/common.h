/* What baseline.c and durable.c share: a small JSON response queued from a static buffer, and a suffix test. */
#ifndef BENCH_BASELINE_COMMON_H
#define BENCH_BASELINE_COMMON_H
#include <microhttpd.h>
#include <string.h>

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
