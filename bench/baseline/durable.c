/*
 * durable: the ceiling of a durable create on our own stack (issue 28). The same libmicrohttpd daemon as
 * baseline.c (alertd's flags, thread pool, limits), but a POST is answered only once its body is on disk:
 *
 *   the handler collects the body, suspends the connection (MHD_suspend_connection) and hands the request to
 *   one writer thread; the writer takes every request queued so far, appends their bodies to one file (one
 *   write), calls fdatasync once for the whole batch and resumes the connections, which then answer 201
 *   {"id":"durable","status":"created"} (200 for a path ending in /response, as baseline.c).
 *
 * This is group commit with no timer window: a batch is whatever arrived while the previous fdatasync ran,
 * which is what alertd's journal does. No JSON, no SQLite: the leanest durable create this stack allows, so
 * alertd --data-dir is measured against it (bench/run.sh). Any GET answers 200 {"status":"ok"} at once.
 * Responses are queued on the second handler call or later, never on the first (libmicrohttpd 0.9.75 closes
 * keep-alive connections otherwise).
 *
 * usage: durable -d DIR PORT [CONNECTION_LIMIT [THREADS]]    appends to DIR/durable.log; stops on SIGTERM/SIGINT
 * build: cc -O2 -o durable durable.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread
 */
#include "../tools/http.h"
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

static const char GET_BODY[] = "{\"status\":\"ok\"}";
static const char POST_BODY[] = "{\"id\":\"durable\",\"status\":\"created\"}";
static int get_marker; /* *con_cls of a GET after its first call */

enum stage { RECEIVING, WRITING, DURABLE, FAILED };

/* One POST: its body, and where it stands. Owned by the connection's handler until queued, then by the writer
 * until resumed, then by the handler again; freed when libmicrohttpd reports the request completed. */
struct request {
    struct MHD_Connection *connection;
    enum stage stage;
    int answer; /* path ends in /response */
    char *body;
    size_t length, capacity;
    struct request *next;
};

static int log_fd = -1;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static struct request *queue_head, **queue_tail = &queue_head;
static int stopping;

static void append_body(struct request *request, const char *data, size_t size)
{
    if (request->length + size + 1 > request->capacity) {
        size_t capacity = request->capacity ? request->capacity : 512;
        while (capacity < request->length + size + 1) capacity *= 2;
        request->body = realloc(request->body, capacity);
        if (request->body == NULL) abort();
        request->capacity = capacity;
    }
    memcpy(request->body + request->length, data, size);
    request->length += size;
}

/* The writer: one batch at a time, everything queued while the last fdatasync ran. */
static void *writer(void *unused)
{
    (void)unused;
    enum { MAX_IOV = 1024 };
    struct iovec iov[MAX_IOV];
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (queue_head == NULL && !stopping) pthread_cond_wait(&queue_ready, &queue_lock);
        struct request *batch = queue_head;
        queue_head = NULL;
        queue_tail = &queue_head;
        int stop = stopping && batch == NULL;
        pthread_mutex_unlock(&queue_lock);
        if (stop) return NULL;

        int ok = 1;
        for (struct request *r = batch; r != NULL && ok;) { /* append, MAX_IOV bodies per writev */
            int n = 0;
            size_t total = 0;
            for (; r != NULL && n < MAX_IOV; r = r->next, n++) {
                r->body[r->length] = '\n';
                iov[n].iov_base = r->body;
                iov[n].iov_len = r->length + 1;
                total += r->length + 1;
            }
            struct iovec *at = iov;
            while (total > 0) {
                ssize_t written = writev(log_fd, at, n);
                if (written < 0 && errno == EINTR) continue;
                if (written <= 0) { ok = 0; break; }
                total -= (size_t)written;
                while (n > 0 && (size_t)written >= at->iov_len) { written -= (ssize_t)at->iov_len; at++; n--; }
                if (n > 0) { at->iov_base = (char *)at->iov_base + written; at->iov_len -= (size_t)written; }
            }
        }
        while (ok && fdatasync(log_fd) != 0) {
            if (errno != EINTR) ok = 0;
        }
        for (struct request *r = batch, *next; r != NULL; r = next) {
            next = r->next; /* read before the resume: the handler may free r once resumed */
            r->stage = ok ? DURABLE : FAILED;
            MHD_resume_connection(r->connection);
        }
    }
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls)
{
    (void)cls; (void)version;
    if (strcmp(method, "POST") != 0) {
        if (*con_cls == NULL) { *con_cls = &get_marker; return MHD_YES; } /* first call: queue nothing */
        if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
        return queue_json(connection, MHD_HTTP_OK, GET_BODY, sizeof GET_BODY - 1);
    }
    struct request *request = *con_cls;
    if (request == NULL) { /* first call: headers only */
        request = calloc(1, sizeof *request);
        if (request == NULL) return MHD_NO;
        request->connection = connection;
        request->answer = ends_with(url, "/response");
        *con_cls = request;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        append_body(request, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    switch (request->stage) {
    case RECEIVING:
        if (request->body == NULL) append_body(request, "", 0); /* room for the newline */
        request->stage = WRITING;
        request->next = NULL;
        /* Suspended before it is queued: the writer never resumes a connection that is not suspended. */
        MHD_suspend_connection(connection);
        pthread_mutex_lock(&queue_lock);
        *queue_tail = request;
        queue_tail = &request->next;
        pthread_cond_signal(&queue_ready);
        pthread_mutex_unlock(&queue_lock);
        return MHD_YES;
    case WRITING: /* not resumed yet (a spurious call): keep waiting */
        return MHD_YES;
    case DURABLE:
        return queue_json(connection, request->answer ? MHD_HTTP_OK : MHD_HTTP_CREATED, POST_BODY,
                          sizeof POST_BODY - 1);
    case FAILED:
        return queue_json(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, GET_BODY, sizeof GET_BODY - 1);
    }
    return MHD_NO;
}

static void request_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                              enum MHD_RequestTerminationCode code)
{
    (void)cls; (void)connection; (void)code;
    struct request *request = *con_cls;
    if (request != NULL && (void *)request != (void *)&get_marker) {
        free(request->body);
        free(request);
    }
    *con_cls = NULL;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    if (argc > 2 && strcmp(argv[1], "-d") == 0) {
        dir = argv[2];
        argv += 2;
        argc -= 2;
    }
    if (dir == NULL || argc < 2) {
        fprintf(stderr, "usage: durable -d DIR PORT [CONNECTION_LIMIT [THREADS]]\n");
        return 64;
    }
    unsigned short port = (unsigned short)atoi(argv[1]);
    unsigned int limit = (unsigned int)fit_to_file_limit(argc > 2 ? atol(argv[2]) : 10000);
    unsigned int threads = argc > 3 ? (unsigned int)atoi(argv[3]) : 2;

    char path[4096];
    snprintf(path, sizeof path, "%s/durable.log", dir);
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        perror(path);
        return 1;
    }

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* before the daemon and writer threads start */
    signal(SIGPIPE, SIG_IGN);

    pthread_t writer_thread;
    if (pthread_create(&writer_thread, NULL, writer, NULL) != 0) {
        fprintf(stderr, "durable: cannot start the writer thread\n");
        return 1;
    }
    struct MHD_Daemon *daemon = MHD_start_daemon(
        BASELINE_FLAGS, port, NULL, NULL, access_handler, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL,
        BASELINE_OPTIONS(limit, threads),
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "durable: cannot start on port %u\n", port);
        return 1;
    }
    printf("durable listening on http://127.0.0.1:%u (connection limit %u, %u threads, log %s)\n", port, limit,
           threads, path);
    fflush(stdout);
    int received = 0;
    sigwait(&signals, &received);
    /* Stop accepting, let the writer finish what is queued (it resumes those connections), then stop. */
    MHD_quiesce_daemon(daemon);
    pthread_mutex_lock(&queue_lock);
    stopping = 1;
    pthread_cond_signal(&queue_ready);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(writer_thread, NULL);
    usleep(200000);
    MHD_stop_daemon(daemon);
    close(log_fd);
    return 0;
}
