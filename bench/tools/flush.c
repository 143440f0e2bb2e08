/*
 * flush: the disk's floor for a durable commit. Appends BYTES (default 4096, one WAL frame) to a new file in DIR
 * and calls fdatasync, N times, as SQLite's WAL with synchronous=FULL does once a commit; prints the latency of
 * each write+fdatasync: "FLUSH n=... bytes=... p50_ms=... p90_ms=... p99_ms=... max_ms=...". The file is removed.
 *
 * usage: flush -d DIR [-n N] [-b BYTES]
 */
#include "http.h"

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int n = 1000, opt;
    size_t bytes = 4096;
    while ((opt = getopt(argc, argv, "d:n:b:")) != -1) {
        switch (opt) {
        case 'd': dir = optarg; break;
        case 'n': n = atoi(optarg); break;
        case 'b': bytes = (size_t)atol(optarg); break;
        default: fprintf(stderr, "usage: flush -d DIR [-n N] [-b BYTES]\n"); return 64;
        }
    }
    if (dir == NULL || n < 1 || bytes < 1) { fprintf(stderr, "usage: flush -d DIR [-n N] [-b BYTES]\n"); return 64; }
    char path[4096];
    snprintf(path, sizeof path, "%s/flush-probe.%d", dir, (int)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) die(path);
    char *block = malloc(bytes);
    double *samples = malloc(sizeof(double) * (size_t)n);
    if (block == NULL || samples == NULL) die("malloc");
    memset(block, 'x', bytes);
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        if (write(fd, block, bytes) != (ssize_t)bytes) die("write");
        if (fdatasync(fd) != 0) die("fdatasync");
        samples[i] = now_ms() - t0;
    }
    close(fd);
    unlink(path);
    qsort(samples, (size_t)n, sizeof(double), compare_doubles);
    printf("FLUSH n=%d bytes=%zu p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n", n, bytes,
           quantile(samples, (size_t)n, 0.5), quantile(samples, (size_t)n, 0.9), quantile(samples, (size_t)n, 0.99),
           samples[n - 1]);
    return 0;
}
