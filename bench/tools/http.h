/* Small helpers shared by the bench tools and servers: the file limit, loopback TCP, whole
 * writes, and parsing one response (Content-Length framed, as libmicrohttpd sends them). */
#ifndef BENCH_HTTP_H
#define BENCH_HTTP_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline void die(const char *what)
{
    perror(what);
    exit(2);
}

/* Soft RLIMIT_NOFILE up to the hard one; returns the limit now in force. */
static inline long raise_file_limit(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
    return limit.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)limit.rlim_cur;
}

/* Raise the soft file limit to the hard one and keep a server's connection limit below it,
 * with the same margin as alertd's HTTPServer.fitToFileLimit (the baseline and the floor). */
static inline long fit_to_file_limit(long wanted)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return wanted;
    if (limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    if (limit.rlim_cur == RLIM_INFINITY) return wanted;
    long available = (long)limit.rlim_cur - 64;
    if (available < 1) available = 1;
    return wanted < available ? wanted : available;
}

/* A TCP socket connected (or connecting, when nonblocking) to host:port, TCP_NODELAY set.
 * bind_ip, when given, is the local address (another 127.x address gives another
 * 28k ephemeral ports). Returns -1 with errno set on failure. */
static inline int tcp_connect(const char *host, int port, int nonblocking, const char *bind_ip)
{
    int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0) | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bind_ip != NULL) {
        struct sockaddr_in local = { .sin_family = AF_INET };
        inet_pton(AF_INET, bind_ip, &local.sin_addr);
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) { close(fd); return -1; }
    }
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0 && errno != EINPROGRESS) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static inline int write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) { struct pollfd p = { fd, POLLOUT, 0 }; poll(&p, 1, 1000); continue; }
            return -1;
        }
        data += n;
        length -= (size_t)n;
    }
    return 0;
}

/* Whether buf holds a whole response; if so sets its status and total length (head + body). */
static inline int http_complete(const char *buf, size_t length, int *status, size_t *total)
{
    const char *end = memmem(buf, length, "\r\n\r\n", 4);
    if (end == NULL) return 0;
    size_t head = (size_t)(end - buf) + 4;
    int code = 0;
    if (length >= 12) code = atoi(buf + 9);
    size_t body = 0;
    for (const char *line = memchr(buf, '\n', head); line != NULL && line < end; line = memchr(line + 1, '\n', (size_t)(end - line))) {
        if (strncasecmp(line + 1, "Content-Length:", 15) == 0) body = strtoul(line + 16, NULL, 10);
    }
    if (head + body > length) return 0;
    *status = code;
    *total = head + body;
    return 1;
}

/* A growable receive buffer. */
typedef struct {
    char *data;
    size_t length, capacity;
} rbuf;

static inline void rbuf_reserve(rbuf *b, size_t extra)
{
    if (b->length + extra + 1 <= b->capacity) return;
    size_t wanted = b->capacity ? b->capacity : 512;
    while (wanted < b->length + extra + 1) wanted *= 2;
    b->data = realloc(b->data, wanted);
    if (b->data == NULL) die("realloc");
    b->capacity = wanted;
}

/* Drops the first n bytes (one response) from the buffer. */
static inline void rbuf_consume(rbuf *b, size_t n)
{
    memmove(b->data, b->data + n, b->length - n);
    b->length -= n;
}

/* Reads one whole response from a blocking socket into b (the response is b->data[0..*total]).
 * Returns its status, or -1 on EOF/error. The caller consumes *total bytes afterwards. */
static inline int read_response(int fd, rbuf *b, size_t *total)
{
    int status;
    for (;;) {
        if (b->length > 0 && http_complete(b->data, b->length, &status, total)) {
            b->data[b->length] = 0;
            return status;
        }
        rbuf_reserve(b, 4096);
        ssize_t n = read(fd, b->data + b->length, b->capacity - b->length - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        b->length += (size_t)n;
    }
}

/* Copies the value of the first "id":"..." in a JSON body into out; returns its length or 0. */
static inline size_t json_id(const char *body, size_t length, char *out, size_t size)
{
    const char *key = memmem(body, length, "\"id\":\"", 6);
    if (key == NULL) return 0;
    key += 6;
    const char *end = memchr(key, '"', length - (size_t)(key - body));
    if (end == NULL || (size_t)(end - key) >= size) return 0;
    memcpy(out, key, (size_t)(end - key));
    out[end - key] = 0;
    return (size_t)(end - key);
}

static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of n sorted values, nearest rank. */
static inline double quantile(const double *sorted, size_t n, double q)
{
    if (n == 0) return 0;
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

#endif
