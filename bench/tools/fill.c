/*
 * fill: creates N alerts as fast as C keep-alive connections allow (nonblocking, epoll,
 * one request in flight per connection), each `POST /v1/alerts` with the body in FILE.
 * Prints "FILL n=... created=... failed=... secs=... rate=...".
 *
 * usage: fill -p PORT -n N -f BODY_FILE [-c CONNECTIONS] [-H 127.0.0.1]
 */
#include "http.h"
#include <sys/epoll.h>

typedef struct {
    int fd;
    rbuf in;
} connection;

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1", *file = NULL;
    int port = 0, connections = 32, opt;
    long n = 0;
    while ((opt = getopt(argc, argv, "p:n:f:c:H:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'n': n = atol(optarg); break;
        case 'f': file = optarg; break;
        case 'c': connections = atoi(optarg); break;
        case 'H': host = optarg; break;
        default: fprintf(stderr, "usage: fill -p PORT -n N -f BODY_FILE [-c CONNECTIONS]\n"); return 64;
        }
    }
    if (port <= 0 || n <= 0 || file == NULL) { fprintf(stderr, "fill: -p, -n and -f are required\n"); return 64; }
    FILE *f = fopen(file, "r");
    if (f == NULL) die(file);
    char body[65536];
    size_t body_length = fread(body, 1, sizeof body, f);
    fclose(f);
    while (body_length > 0 && (body[body_length - 1] == '\n' || body[body_length - 1] == '\r')) body_length--;
    char request[70000];
    int length = snprintf(request, sizeof request,
                          "POST /v1/alerts HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                          "Content-Length: %zu\r\n\r\n%.*s", host, body_length, (int)body_length, body);
    if (connections > n) connections = (int)n;

    int ep = epoll_create1(EPOLL_CLOEXEC);
    connection *pool = calloc((size_t)connections, sizeof *pool);
    long issued = 0, created = 0, failed = 0, finished = 0;
    double start = now_ms();
    for (int i = 0; i < connections; i++) {
        pool[i].fd = tcp_connect(host, port, 0, NULL);
        if (pool[i].fd < 0) die("connect");
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(ep, EPOLL_CTL_ADD, pool[i].fd, &e);
        if (write_all(pool[i].fd, request, (size_t)length) != 0) die("write");
        issued++;
    }
    struct epoll_event events[256];
    while (finished < issued) {
        int k = epoll_wait(ep, events, 256, 10000);
        if (k == 0) { fprintf(stderr, "fill: no response for 10 s\n"); break; }
        for (int i = 0; i < k; i++) {
            connection *c = &pool[events[i].data.u32];
            rbuf_reserve(&c->in, 4096);
            ssize_t got = read(c->fd, c->in.data + c->in.length, c->in.capacity - c->in.length - 1);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN) continue;
                fprintf(stderr, "fill: connection closed by the server\n");
                return 1;
            }
            c->in.length += (size_t)got;
            int status;
            size_t total;
            while (http_complete(c->in.data, c->in.length, &status, &total)) {
                rbuf_consume(&c->in, total);
                finished++;
                if (status == 201) created++; else failed++;
                if (issued < n) {
                    if (write_all(c->fd, request, (size_t)length) != 0) die("write");
                    issued++;
                }
            }
        }
    }
    double secs = (now_ms() - start) / 1e3;
    printf("FILL n=%ld created=%ld failed=%ld secs=%.2f rate=%.0f\n", n, created, failed, secs, created / secs);
    return failed == 0 && created == n ? 0 : 1;
}
