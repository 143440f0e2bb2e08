/*
 * baseline: the ceiling of our own stack. A minimal libmicrohttpd server with the daemon
 * flags, thread pool and limits alertd's HTTPServer uses (Sources/MicroHTTP/HTTPServer.swift):
 *   MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC,
 *   thread pool 2, connection limit (fitted to RLIMIT_NOFILE like alertd), 64 KiB per
 *   connection, 30 s idle timeout, listen backlog 1024.
 *
 * Any GET answers 200 {"status":"ok"}. Any POST reads its body, then answers 201
 * {"id":"baseline","status":"created"}, except a POST to a path ending in /response, which
 * answers 200 (alertd's status for an answer), so the create-then-answer wrk script runs
 * unchanged against both servers. The response is queued on the second handler call, never
 * on the first: on libmicrohttpd 0.9.75, queuing on the first call closes keep-alive connections.
 *
 * With -w ("waiters"), a GET carrying a `wait` query argument is a long-poll instead: the
 * connection is suspended (MHD_suspend_connection) and held; a POST to a path ending in
 * /response resumes every held connection, which then answers 200 {"status":"ok"}. This is
 * libmicrohttpd's own cost of holding and waking waiters, the ceiling for alertd's
 * long-polls. Without -w no lookup is made and every GET answers at once.
 *
 * usage: baseline [-w] PORT [CONNECTION_LIMIT [THREADS]]    stops on SIGTERM/SIGINT
 * build: cc -O2 -o baseline baseline.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include "../tools/http.h"
#include "common.h"
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char GET_BODY[] = "{\"status\":\"ok\"}";
static const char POST_BODY[] = "{\"id\":\"baseline\",\"status\":\"created\"}";
static int request_marker; /* *con_cls after the first call: "headers seen" */
static int suspended_marker; /* *con_cls of a held long-poll */
static int waiters_mode;

/* Held long-polls, resumed together by the next POST .../response (-w only). */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Connection **held;
static size_t held_count, held_capacity;

static void hold(struct MHD_Connection *connection)
{
    pthread_mutex_lock(&held_lock);
    if (held_count == held_capacity) {
        held_capacity = held_capacity ? held_capacity * 2 : 1024;
        held = realloc(held, held_capacity * sizeof *held);
        if (held == NULL) abort();
    }
    MHD_suspend_connection(connection); /* under the lock: never resumed before it is suspended */
    held[held_count++] = connection;
    pthread_mutex_unlock(&held_lock);
}

static void resume_all(void)
{
    pthread_mutex_lock(&held_lock);
    for (size_t i = 0; i < held_count; i++) MHD_resume_connection(held[i]);
    held_count = 0;
    pthread_mutex_unlock(&held_lock);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls)
{
    (void)cls; (void)version; (void)upload_data;
    if (*con_cls == NULL) { /* first call: headers only; queue nothing */
        *con_cls = &request_marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { /* a body chunk: read and drop it */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "POST") == 0) {
        int answer = ends_with(url, "/response");
        if (answer && waiters_mode) resume_all();
        return queue_json(connection, answer ? MHD_HTTP_OK : MHD_HTTP_CREATED, POST_BODY, sizeof POST_BODY - 1);
    }
    if (waiters_mode && *con_cls == &request_marker
        && MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "wait") != NULL) {
        *con_cls = &suspended_marker;
        hold(connection);
        return MHD_YES;
    }
    return queue_json(connection, MHD_HTTP_OK, GET_BODY, sizeof GET_BODY - 1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "-w") == 0) {
        waiters_mode = 1;
        argv++;
        argc--;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: baseline [-w] PORT [CONNECTION_LIMIT [THREADS]]\n");
        return 64;
    }
    unsigned short port = (unsigned short)atoi(argv[1]);
    unsigned int limit = (unsigned int)fit_to_file_limit(argc > 2 ? atol(argv[2]) : 10000);
    unsigned int threads = argc > 3 ? (unsigned int)atoi(argv[3]) : 2;

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* before the daemon threads start */
    signal(SIGPIPE, SIG_IGN);

    struct MHD_Daemon *daemon = MHD_start_daemon(
        BASELINE_FLAGS, port, NULL, NULL, access_handler, NULL,
        BASELINE_OPTIONS(limit, threads),
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "baseline: cannot start on port %u\n", port);
        return 1;
    }
    printf("baseline listening on http://127.0.0.1:%u (connection limit %u, %u threads)\n", port, limit, threads);
    fflush(stdout);
    int received = 0;
    sigwait(&signals, &received);
    if (waiters_mode) { /* answer what is held: MHD_stop_daemon aborts on suspended connections */
        MHD_quiesce_daemon(daemon);
        resume_all();
        usleep(200000);
    }
    MHD_stop_daemon(daemon);
    return 0;
}
