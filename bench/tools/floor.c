/*
 * floor: the kernel floor for waking held long-polls. The leanest HTTP/1.1 server that does
 * what the "10,000 waiters on one alert" figure needs, so that figure can be read against what
 * plain sockets achieve on the same machine: no library, nonblocking sockets, one epoll and
 * one SO_REUSEPORT listener per thread (2 threads, as alertd's libmicrohttpd pool and the
 * baseline), keep-alive, nothing else (no timeouts, no chunked bodies, no Date).
 *
 *   GET with a `wait=` query argument: held, no response, until the next answer.
 *   POST to a path ending in /response (the answer): every held connection, on every thread
 *     (the others are told through their eventfd), gets WAKE_RESPONSE below, 270 bytes, the
 *     size of alertd's answered-waiter response, in one send() each; then the POST gets the
 *     same response. The connections stay open for their next request.
 *   Any other POST: 201 {"id":"x"} (so run.sh's new_alert gets an id). Any other request:
 *     200 {"status":"ok"} (/healthz for run.sh's start-up wait).
 * Request bodies are read and dropped by Content-Length. "Connection: close" (or HTTP/1.0
 * without keep-alive) closes after the response.
 *
 * usage: floor PORT [CONNECTION_LIMIT [THREADS]]    stops on SIGTERM/SIGINT
 * build: cc -O2 -Wall -o floor floor.c -lpthread
 */
#define _GNU_SOURCE
#include "http.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static const char WAKE_RESPONSE[] =
    "HTTP/1.1 200 OK\r\nDate: Mon, 30 Nov 2026 14:51:09 GMT\r\nContent-Type: application/json\r\n"
    "X-Request-Id: 9a2bdf50-b0e91\r\nContent-Length: 131\r\n\r\n"
    "{\"buttonIndex\":1,\"buttonTitle\":\"Log in\",\"ok\":true,\"values\":[\"\",\"\"],"
    "\"resolution\":\"answered\",\"resolvedAt\":\"2026-11-30T14:51:09.091Z\"}";
_Static_assert(sizeof WAKE_RESPONSE - 1 == 270, "alertd's answered-waiter response is 270 bytes");
static const char OK_RESPONSE[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}";
static const char CREATED_RESPONSE[] =
    "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"id\":\"x\"}";
static const char TOO_LARGE_RESPONSE[] =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

enum { IN_SIZE = 4096, EVENTS = 1024 };
enum { REQ_OK, REQ_CREATE, REQ_ANSWER, REQ_HOLD };
enum { TAG_LISTENER = 0, TAG_EVENTFD = 1 }; /* epoll data.u64; anything else is a conn pointer */

typedef struct conn {
    int fd;
    size_t held;   /* 1 + its index in its thread's held list, or 0 */
    int closing;   /* close once the output is flushed */
    int pending;   /* the request whose body is being dropped */
    size_t body_left;
    char *out;     /* unsent output (rare: only when a send was short) */
    size_t out_length, out_capacity;
    size_t in_length;
    char in[IN_SIZE];
} conn;

typedef struct {
    conn **items;
    size_t count, capacity;
} conn_list;

typedef struct {
    pthread_t thread;
    int ep, listener, event;
    conn_list held, waking; /* waking: the held list just answered (swapped, so answers may hold anew) */
    int woke;               /* wake_held ran: other connections of this batch of events may be gone */
} worker;

static worker *workers;
static unsigned int thread_count;
static unsigned short port;
static long open_connections, connection_limit;

static void list_push(conn_list *list, conn *c)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 1024;
        list->items = realloc(list->items, list->capacity * sizeof *list->items);
        if (list->items == NULL) abort();
    }
    list->items[list->count++] = c;
}

static void hold(worker *w, conn *c)
{
    list_push(&w->held, c);
    c->held = w->held.count;
}

static void unhold(worker *w, conn *c)
{
    conn *last = w->held.items[--w->held.count];
    w->held.items[c->held - 1] = last;
    last->held = c->held;
    c->held = 0;
}

static void conn_close(worker *w, conn *c)
{
    if (c->held) unhold(w, c);
    close(c->fd); /* also leaves the epoll set */
    free(c->out);
    free(c);
    __atomic_sub_fetch(&open_connections, 1, __ATOMIC_RELAXED);
}

/* Sends what can be sent now, keeps the rest and asks for EPOLLOUT. 0, or -1 when closed. */
static int conn_send(worker *w, conn *c, const char *data, size_t length)
{
    if (c->out_length == 0) {
        ssize_t n;
        do n = send(c->fd, data, length, MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN) { conn_close(w, c); return -1; }
        if (n > 0) { data += n; length -= (size_t)n; }
        if (length == 0) return 0;
        struct epoll_event e = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
        epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &e);
    }
    if (c->out_length + length > c->out_capacity) {
        c->out_capacity = c->out_length + length + 1024;
        c->out = realloc(c->out, c->out_capacity);
        if (c->out == NULL) abort();
    }
    memcpy(c->out + c->out_length, data, length);
    c->out_length += length;
    return 0;
}

/* Writes the wake response to every connection this thread holds. */
static void wake_held(worker *w)
{
    conn_list list = w->held;
    w->held = w->waking;
    w->waking = list;
    w->held.count = 0;
    for (size_t i = 0; i < list.count; i++) { /* the fast path first: one send per waiter */
        conn *c = list.items[i];
        c->held = 0;
        if (conn_send(w, c, WAKE_RESPONSE, sizeof WAKE_RESPONSE - 1) != 0) list.items[i] = NULL;
    }
    w->waking.count = list.count;
    w->woke = 1;
}

static int conn_process(worker *w, conn *c);

/* After wake_held: what the woken connections sent meanwhile is processed now, and those
 * that asked to close are closed. (Processing may answer again: hence the copy of the list.) */
static void process_woken(worker *w)
{
    conn_list list = w->waking;
    w->waking = (conn_list){ 0 };
    for (size_t i = 0; i < list.count; i++) {
        if (list.items[i] != NULL) conn_process(w, list.items[i]);
    }
    if (w->waking.items == NULL) {
        w->waking = list;
        w->waking.count = 0;
    } else {
        free(list.items);
    }
}

static void answer_all(worker *self)
{
    uint64_t one = 1;
    for (unsigned int i = 0; i < thread_count; i++) { /* the other threads start at once */
        if (&workers[i] != self && write(workers[i].event, &one, sizeof one) < 0) perror("floor: eventfd");
    }
    wake_held(self);
}

static int ends_with(const char *text, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(text + n - m, suffix, m) == 0;
}

/* Parses the head in c->in[0..head). Sets the request kind, body length and whether to close. */
static void parse_head(conn *c, size_t head, int *kind, size_t *body, int *close_after)
{
    char *line_end = memmem(c->in, head, "\r\n", 2);
    char *method_end = memchr(c->in, ' ', (size_t)(line_end - c->in));
    char *target = method_end ? method_end + 1 : line_end;
    char *target_end = memchr(target, ' ', (size_t)(line_end - target));
    if (target_end == NULL) target_end = line_end;
    char *query = memchr(target, '?', (size_t)(target_end - target));
    size_t path_length = (size_t)((query ? query : target_end) - target);
    size_t method_length = (size_t)(method_end ? method_end - c->in : 0);
    int http10 = target_end + 9 <= line_end && memcmp(target_end, " HTTP/1.0", 9) == 0;

    *kind = REQ_OK;
    if (method_length == 4 && memcmp(c->in, "POST", 4) == 0) {
        *kind = ends_with(target, path_length, "/response") ? REQ_ANSWER : REQ_CREATE;
    } else if (method_length == 3 && memcmp(c->in, "GET", 3) == 0 && query != NULL) {
        for (char *p = query; p != NULL && p < target_end; p = memchr(p + 1, '&', (size_t)(target_end - p - 1))) {
            if (target_end - p > 5 && memcmp(p + 1, "wait=", 5) == 0) { *kind = REQ_HOLD; break; }
        }
    }
    *body = 0;
    int keep_alive = 0, close = 0;
    char *end = c->in + head - 2;
    for (char *line = line_end + 2; line < end; line = memmem(line, (size_t)(end - line), "\r\n", 2) + 2) {
        if (strncasecmp(line, "Content-Length:", 15) == 0) *body = strtoul(line + 15, NULL, 10);
        if (strncasecmp(line, "Connection:", 11) == 0) {
            char value[64];
            size_t n = (size_t)((char *)memmem(line, (size_t)(end - line), "\r\n", 2) - line) - 11;
            if (n >= sizeof value) n = sizeof value - 1;
            memcpy(value, line + 11, n);
            value[n] = 0;
            close = strcasestr(value, "close") != NULL;
            keep_alive = strcasestr(value, "keep-alive") != NULL;
        }
    }
    *close_after = close || (http10 && !keep_alive);
}

/* A request (with its body read): answers or holds it. 0, or -1 when the connection was closed. */
static int dispatch(worker *w, conn *c, int kind)
{
    switch (kind) {
    case REQ_HOLD:
        hold(w, c);
        return 0;
    case REQ_ANSWER:
        answer_all(w);
        if (conn_send(w, c, WAKE_RESPONSE, sizeof WAKE_RESPONSE - 1) != 0) return -1;
        break;
    case REQ_CREATE:
        if (conn_send(w, c, CREATED_RESPONSE, sizeof CREATED_RESPONSE - 1) != 0) return -1;
        break;
    default:
        if (conn_send(w, c, OK_RESPONSE, sizeof OK_RESPONSE - 1) != 0) return -1;
    }
    return 0;
}

/* Works through the input: heads, dropped bodies, answers. 0, or -1 when the connection was closed. */
static int conn_process(worker *w, conn *c)
{
    while (!c->held && c->in_length > 0) {
        if (c->body_left > 0) {
            size_t n = c->body_left < c->in_length ? c->body_left : c->in_length;
            memmove(c->in, c->in + n, c->in_length - n);
            c->in_length -= n;
            c->body_left -= n;
            if (c->body_left > 0) break;
            if (dispatch(w, c, c->pending) != 0) return -1;
            continue;
        }
        if (c->closing) break; /* nothing after a request that closes */
        char *end = memmem(c->in, c->in_length, "\r\n\r\n", 4);
        if (end == NULL) {
            if (c->in_length < IN_SIZE) break;
            if (conn_send(w, c, TOO_LARGE_RESPONSE, sizeof TOO_LARGE_RESPONSE - 1) != 0) return -1;
            c->closing = 1;
            break;
        }
        size_t head = (size_t)(end - c->in) + 4, body;
        int kind, close_after;
        parse_head(c, head, &kind, &body, &close_after);
        memmove(c->in, c->in + head, c->in_length - head);
        c->in_length -= head;
        c->body_left = body;
        c->pending = kind;
        if (close_after) c->closing = 1;
        if (body == 0 && dispatch(w, c, kind) != 0) return -1;
    }
    if (c->closing && !c->held && c->body_left == 0 && c->out_length == 0) {
        conn_close(w, c);
        return -1;
    }
    return 0;
}

static void conn_readable(worker *w, conn *c)
{
    ssize_t n;
    do n = read(c->fd, c->in + c->in_length, IN_SIZE - c->in_length); while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) { conn_close(w, c); return; } /* EOF, error, or a held connection's buffer full */
    c->in_length += (size_t)n;
    conn_process(w, c);
}

static void conn_writable(worker *w, conn *c)
{
    size_t sent = 0;
    while (sent < c->out_length) {
        ssize_t n = send(c->fd, c->out + sent, c->out_length - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n < 0) { conn_close(w, c); return; }
        sent += (size_t)n;
    }
    memmove(c->out, c->out + sent, c->out_length - sent);
    c->out_length -= sent;
    if (c->out_length > 0) return;
    if (c->closing && !c->held && c->body_left == 0) { conn_close(w, c); return; }
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
    epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &e);
    conn_process(w, c); /* input that came while the output waited */
}

static void accept_all(worker *w)
{
    for (;;) {
        int fd = accept4(w->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno != EAGAIN) perror("floor: accept");
            return;
        }
        if (__atomic_add_fetch(&open_connections, 1, __ATOMIC_RELAXED) > connection_limit) {
            __atomic_sub_fetch(&open_connections, 1, __ATOMIC_RELAXED);
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = malloc(sizeof *c);
        if (c == NULL) abort();
        memset(c, 0, offsetof(conn, in));
        c->fd = fd;
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &e) != 0) conn_close(w, c);
    }
}

static void *run(void *argument)
{
    worker *w = argument;
    struct epoll_event events[EVENTS];
    for (;;) {
        int k = epoll_wait(w->ep, events, EVENTS, -1);
        if (k < 0 && errno != EINTR) { perror("floor: epoll_wait"); exit(1); }
        for (int i = 0; i < k; i++) {
            uint64_t tag = events[i].data.u64;
            if (tag == TAG_LISTENER) {
                accept_all(w);
            } else if (tag == TAG_EVENTFD) {
                uint64_t count;
                if (read(w->event, &count, sizeof count) == sizeof count) wake_held(w);
            } else {
                conn *c = events[i].data.ptr;
                if (events[i].events & EPOLLOUT) {
                    conn_writable(w, c);
                } else {
                    conn_readable(w, c);
                }
            }
            if (w->woke) { /* a wake may have closed connections further on in this batch: */
                while (w->woke) { /* leave them to the next epoll_wait (level-triggered) */
                    w->woke = 0;
                    process_woken(w);
                }
                break;
            }
        }
    }
    return NULL;
}

static int listen_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1024) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: floor PORT [CONNECTION_LIMIT [THREADS]]\n");
        return 64;
    }
    port = (unsigned short)atoi(argv[1]);
    connection_limit = fit_to_file_limit(argc > 2 ? atol(argv[2]) : 10000);
    thread_count = argc > 3 ? (unsigned int)atoi(argv[3]) : 2;
    if (thread_count < 1) thread_count = 1;

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* before the threads start */
    signal(SIGPIPE, SIG_IGN);

    workers = calloc(thread_count, sizeof *workers);
    for (unsigned int i = 0; i < thread_count; i++) {
        worker *w = &workers[i];
        w->listener = listen_socket();
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        w->event = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (w->listener < 0 || w->ep < 0 || w->event < 0) {
            fprintf(stderr, "floor: cannot start on port %u: %s\n", port, strerror(errno));
            return 1;
        }
        struct epoll_event listener = { .events = EPOLLIN, .data.u64 = TAG_LISTENER };
        struct epoll_event event = { .events = EPOLLIN, .data.u64 = TAG_EVENTFD };
        epoll_ctl(w->ep, EPOLL_CTL_ADD, w->listener, &listener);
        epoll_ctl(w->ep, EPOLL_CTL_ADD, w->event, &event);
    }
    for (unsigned int i = 0; i < thread_count; i++) {
        if (pthread_create(&workers[i].thread, NULL, run, &workers[i]) != 0) {
            fprintf(stderr, "floor: cannot start a thread\n");
            return 1;
        }
    }
    printf("floor listening on http://127.0.0.1:%u (connection limit %ld, %u threads)\n", port, connection_limit,
           thread_count);
    fflush(stdout);
    int received = 0;
    sigwait(&signals, &received);
    return 0; /* the kernel closes every connection */
}
