/*
 * swarm: many long-poll waiters on one alert, over nonblocking sockets and epoll.
 *
 * Opens N connections and sends `GET /v1/alerts/ID/response?wait=W` on each, then waits
 * until the server has read every request (no server-side socket on PORT has unread bytes
 * in /proc/net/tcp) plus a settle time for the requests to reach the store.
 *   -m wake (default): answers the alert on one more connection and measures, from the
 *      moment the answer is written, when the first, median, p99 and last waiter responses
 *      arrive. Prints one "WAKE ..." line.
 *   -m hold: prints "READY ..." and holds the waiters until SIGTERM/SIGINT or -T seconds,
 *      then prints "HOLD ..." and exits (for measuring the server's RSS).
 *
 * usage: swarm -p PORT -i ID -n N [-H 127.0.0.1] [-b B] [-m wake|hold] [-w WAIT_S]
 *              [-a ANSWER_JSON] [-s SETTLE_MS] [-T TIMEOUT_S] [-q MAX_CONNECTING] [-k] [-e] [-A ANSWER_PORT]
 *
 * With -e each waiter is an event stream instead (`GET /v1/events?type=answered`, Server-Sent
 * Events): it waits with its response head received, and is woken when the stream brings the
 * `answered` event. With -A the answer goes to ANSWER_PORT (another instance of a cluster) while
 * the waiters wait on PORT.
 *
 * With -k each connection first makes one `GET /healthz` and reads its answer, then
 * long-polls on the same keep-alive connection (a client that reuses its connection).
 *
 * Connections come from 127.0.B.1 to 127.0.B.8 in turn (-b B, default 0): with one source
 * address, connect() slows down badly once most of the ephemeral port range is taken.
 * Several swarms at once should use different -b values.
 */
#include "http.h"
#include <signal.h>
#include <sys/epoll.h>

enum { CONNECTING, PRIMING, WAITING, DONE, FAILED };

typedef struct {
    int fd;
    int state;
    int status;
    double at; /* when the response was complete */
    rbuf in;
} waiter;

static volatile sig_atomic_t stop_requested;

/* An event stream's waiter read what came: 1 once the `answered` event is in, 0 while not (the
 * head, the opening block, keep-alive comments), -1 when the stream ended or failed. */
static int sse_read(waiter *w)
{
    rbuf_reserve(&w->in, 4096);
    ssize_t got = read(w->fd, w->in.data + w->in.length, w->in.capacity - w->in.length - 1);
    if (got < 0 && errno == EAGAIN) return 0;
    if (got <= 0) return -1;
    w->in.length += (size_t)got;
    w->in.data[w->in.length] = 0;
    if (strstr(w->in.data, "\nevent: answered") != NULL) return 1;
    if (w->in.length > 4096) rbuf_consume(&w->in, w->in.length - 64); /* a split marker stays whole */
    return 0;
}
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

/* Server-side sockets of PORT: how many are established, and how many still hold unread bytes. */
static void server_sockets(int port, long *established, long *unread)
{
    *established = *unread = 0;
    FILE *f = fopen("/proc/net/tcp", "r");
    if (f == NULL) return;
    char line[512];
    if (fgets(line, sizeof line, f) == NULL) { fclose(f); return; }
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned int local_port, state;
        unsigned long tx, rx;
        if (sscanf(line, " %*d: %*x:%x %*x:%*x %x %lx:%lx", &local_port, &state, &tx, &rx) != 4) continue;
        if ((int)local_port != port || state != 1) continue;
        (*established)++;
        if (rx > 0) (*unread)++;
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1", *id = NULL, *mode = "wake";
    int block = 0, prime = 0, sse = 0, answer_port = 0;
    const char *answer = "{\"buttonIndex\":1}";
    int port = 0, wait_s = 60, settle_ms = 500, timeout_s = 120, max_connecting = 256;
    long n = 0;
    int opt;
    while ((opt = getopt(argc, argv, "p:i:n:H:b:m:w:a:s:T:q:keA:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'i': id = optarg; break;
        case 'n': n = atol(optarg); break;
        case 'H': host = optarg; break;
        case 'b': block = atoi(optarg); break;
        case 'm': mode = optarg; break;
        case 'w': wait_s = atoi(optarg); break;
        case 'a': answer = optarg; break;
        case 's': settle_ms = atoi(optarg); break;
        case 'T': timeout_s = atoi(optarg); break;
        case 'q': max_connecting = atoi(optarg); break;
        case 'k': prime = 1; break;
        case 'e': sse = 1; break;
        case 'A': answer_port = atoi(optarg); break;
        default: fprintf(stderr, "see the comment at the top of swarm.c\n"); return 64;
        }
    }
    int hold = strcmp(mode, "hold") == 0;
    if (port <= 0 || id == NULL || n <= 0) { fprintf(stderr, "swarm: -p PORT -i ID -n N required\n"); return 64; }
    long files = raise_file_limit();
    if (n + 16 > files) {
        fprintf(stderr, "swarm: %ld waiters need %ld descriptors; RLIMIT_NOFILE is %ld (run several swarms)\n",
                n, n + 16, files);
        return 3;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    if (answer_port <= 0) answer_port = port;
    char request[512];
    int request_length = sse ? snprintf(request, sizeof request,
                                        "GET /v1/events?type=answered HTTP/1.1\r\nHost: %s\r\n\r\n", host)
                             : snprintf(request, sizeof request,
                                        "GET /v1/alerts/%s/response?wait=%d HTTP/1.1\r\nHost: %s\r\n\r\n", id, wait_s,
                                        host);
    char priming[256];
    int priming_length = snprintf(priming, sizeof priming, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host);
    waiter *waiters = calloc((size_t)n, sizeof *waiters);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event events[4096];
    double deadline = now_ms() + timeout_s * 1e3;
    double start = now_ms();

    /* Open and send, at most max_connecting handshakes in flight. */
    long opened = 0, sent = 0, failed = 0, early = 0, connecting = 0;
    while (sent + failed < n && now_ms() < deadline && !stop_requested) {
        while (opened < n && connecting < max_connecting) {
            waiter *w = &waiters[opened];
            char source[32];
            snprintf(source, sizeof source, "127.0.%d.%ld", block, opened % 8 + 1);
            w->fd = tcp_connect(host, port, 1, source);
            if (w->fd < 0) { w->state = FAILED; failed++; opened++; continue; }
            w->state = CONNECTING;
            struct epoll_event e = { .events = EPOLLOUT, .data.u64 = (uint64_t)opened };
            epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &e);
            opened++;
            connecting++;
        }
        int k = epoll_wait(ep, events, 4096, 100);
        for (int i = 0; i < k; i++) {
            waiter *w = &waiters[events[i].data.u64];
            if (w->state == CONNECTING) {
                int error = 0;
                socklen_t size = sizeof error;
                getsockopt(w->fd, SOL_SOCKET, SO_ERROR, &error, &size);
                connecting--;
                const char *first = prime ? priming : request;
                size_t first_length = (size_t)(prime ? priming_length : request_length);
                if (error != 0 || write_all(w->fd, first, first_length) != 0) {
                    w->state = FAILED; failed++; close(w->fd); continue;
                }
                w->state = prime ? PRIMING : WAITING;
                if (!prime) sent++;
                struct epoll_event e = { .events = EPOLLIN, .data.u64 = events[i].data.u64 };
                epoll_ctl(ep, EPOLL_CTL_MOD, w->fd, &e);
            } else if (w->state == PRIMING) {
                rbuf_reserve(&w->in, 2048);
                ssize_t got = read(w->fd, w->in.data + w->in.length, w->in.capacity - w->in.length - 1);
                size_t total;
                int status;
                if (got > 0) w->in.length += (size_t)got;
                if (got > 0 && !http_complete(w->in.data, w->in.length, &status, &total)) continue;
                if (got < 0 && errno == EAGAIN) continue;
                if (got <= 0 || write_all(w->fd, request, (size_t)request_length) != 0) {
                    w->state = FAILED; failed++; close(w->fd); continue;
                }
                w->in.length = 0;
                w->state = WAITING;
                sent++;
            } else if (w->state == WAITING) {
                if (sse && sse_read(w) == 0) continue; /* the stream's head: still waiting */
                early++; /* a response (or close) before the answer: not a waiter any more */
                w->state = FAILED;
                epoll_ctl(ep, EPOLL_CTL_DEL, w->fd, NULL);
            }
        }
    }
    double opened_ms = now_ms() - start;

    /* Wait until the server has read every request, then let them reach the store. */
    long established = 0, unread = 0;
    while (now_ms() < deadline && !stop_requested) {
        server_sockets(port, &established, &unread);
        if (established >= sent && unread == 0) break;
        usleep(20000);
    }
    usleep((useconds_t)settle_ms * 1000);
    /* Anything that answered during the settle time is not waiting. */
    for (;;) {
        int k = epoll_wait(ep, events, 4096, 0);
        if (k <= 0) break;
        for (int i = 0; i < k; i++) {
            waiter *w = &waiters[events[i].data.u64];
            if (w->state == WAITING && sse && sse_read(w) == 0) continue;
            if (w->state == WAITING) { early++; w->state = FAILED; }
            epoll_ctl(ep, EPOLL_CTL_DEL, w->fd, NULL);
        }
    }
    long waiting = sent - early;
    double ready_ms = now_ms() - start;

    if (hold) {
        printf("READY waiters=%ld failed=%ld early=%ld open_ms=%.1f ready_ms=%.1f server_sockets=%ld\n",
               waiting, failed, early, opened_ms, ready_ms, established);
        fflush(stdout);
        while (!stop_requested && now_ms() < deadline) {
            int k = epoll_wait(ep, events, 4096, 200);
            for (int i = 0; i < k; i++) {
                waiter *w = &waiters[events[i].data.u64];
                if (w->state == WAITING && sse && sse_read(w) == 0) continue;
                if (w->state == WAITING) { early++; w->state = FAILED; }
                epoll_ctl(ep, EPOLL_CTL_DEL, w->fd, NULL);
            }
        }
        printf("HOLD waiters=%ld answered_while_held=%ld\n", waiting, early);
        return 0;
    }

    /* Answer on one more connection, then collect every waiter's response. */
    char answer_request[1024];
    int answer_length = snprintf(answer_request, sizeof answer_request,
                                 "POST /v1/alerts/%s/response HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                                 "Content-Length: %zu\r\n\r\n%s", id, host, strlen(answer), answer);
    int answerer = tcp_connect(host, answer_port, 0, NULL);
    if (answerer < 0) die("connect (answer)");
    waiter answer_slot = { .fd = answerer, .state = WAITING };
    struct epoll_event e = { .events = EPOLLIN, .data.u64 = (uint64_t)n };
    epoll_ctl(ep, EPOLL_CTL_ADD, answerer, &e);
    double t0 = now_ms();
    if (write_all(answerer, answer_request, (size_t)answer_length) != 0) die("write (answer)");

    long done = 0, ok = 0, bad = 0;
    double *arrivals = malloc(sizeof(double) * (size_t)(waiting > 0 ? waiting : 1));
    while (done < waiting || answer_slot.state == WAITING) {
        if (now_ms() > deadline || stop_requested) break;
        int k = epoll_wait(ep, events, 4096, 1000);
        for (int i = 0; i < k; i++) {
            uint64_t index = events[i].data.u64;
            waiter *w = index == (uint64_t)n ? &answer_slot : &waiters[index];
            if (w->state != WAITING) continue;
            if (sse && w != &answer_slot) {
                int seen = sse_read(w);
                if (seen == 0) continue;
                w->at = now_ms() - t0;
                w->state = seen > 0 ? DONE : FAILED;
                w->status = seen > 0 ? 200 : 0;
                epoll_ctl(ep, EPOLL_CTL_DEL, w->fd, NULL);
                arrivals[done++] = w->at;
                if (w->state == DONE) ok++; else bad++;
                continue;
            }
            rbuf_reserve(&w->in, 2048);
            ssize_t got = read(w->fd, w->in.data + w->in.length, w->in.capacity - w->in.length - 1);
            size_t total;
            if (got > 0) w->in.length += (size_t)got;
            if (got > 0 && !http_complete(w->in.data, w->in.length, &w->status, &total)) continue;
            if (got < 0 && errno == EAGAIN) continue;
            w->at = now_ms() - t0;
            w->state = got > 0 ? DONE : FAILED;
            epoll_ctl(ep, EPOLL_CTL_DEL, w->fd, NULL);
            if (w == &answer_slot) continue;
            arrivals[done++] = w->at;
            if (w->state == DONE && w->status == 200) ok++; else bad++;
        }
    }
    qsort(arrivals, (size_t)done, sizeof(double), compare_doubles);
    printf("WAKE n=%ld ok=%ld bad=%ld missing=%ld failed=%ld early=%ld open_ms=%.1f ready_ms=%.1f answer_status=%d "
           "answer_ms=%.3f first_ms=%.3f p50_ms=%.3f p99_ms=%.3f last_ms=%.3f\n",
           n, ok, bad, waiting - done, failed, early, opened_ms, ready_ms, answer_slot.status, answer_slot.at,
           done ? arrivals[0] : 0, quantile(arrivals, (size_t)done, 0.5), quantile(arrivals, (size_t)done, 0.99),
           done ? arrivals[done - 1] : 0);
    return ok == n ? 0 : 1;
}
