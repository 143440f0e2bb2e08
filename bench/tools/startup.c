/*
 * startup: time from exec to the first successful `GET /healthz`, RUNS times.
 * Forks and execs the command (output to /dev/null), polls 127.0.0.1:PORT with a tight
 * connect loop (a try every POLL_US, default 100 µs), and once /healthz answers 200 stops the server with SIGTERM.
 * Prints each run and "STARTUP runs=... median_ms=... min_ms=... max_ms=...". A run that sees no 200 within
 * TIMEOUT_MS (default 10000) fails.
 *
 * usage: startup -p PORT [-r RUNS] [-t TIMEOUT_MS] [-i POLL_US] -- COMMAND [ARGS...]
 */
#include "http.h"
#include <signal.h>
#include <sys/wait.h>

static double one_run(int port, double timeout_ms, useconds_t poll_us, char **command)
{
    double t0 = now_ms();
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(command[0], command);
        _exit(127);
    }
    double ready = -1;
    static const char request[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    while (now_ms() - t0 < timeout_ms) {
        int status;
        if (waitpid(child, &status, WNOHANG) == child) { fprintf(stderr, "startup: server exited\n"); return -1; }
        int fd = tcp_connect("127.0.0.1", port, 0, NULL);
        if (fd < 0) { usleep(poll_us); continue; }
        rbuf in = { 0 };
        size_t total;
        int code = write_all(fd, request, sizeof request - 1) == 0 ? read_response(fd, &in, &total) : -1;
        close(fd);
        free(in.data);
        if (code == 200) { ready = now_ms() - t0; break; }
        usleep(poll_us);
    }
    kill(child, SIGTERM);
    for (int i = 0; i < 500; i++) { /* 5 s for a graceful stop, then SIGKILL */
        if (waitpid(child, NULL, WNOHANG) == child) return ready;
        usleep(10000);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return ready;
}

static const char usage[] = "usage: startup -p PORT [-r RUNS] [-t TIMEOUT_MS] [-i POLL_US] -- COMMAND [ARGS...]\n";

int main(int argc, char **argv)
{
    int port = 0, runs = 5, opt;
    double timeout_ms = 10000;
    useconds_t poll_us = 100;
    while ((opt = getopt(argc, argv, "p:r:t:i:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 't': timeout_ms = atof(optarg); break;
        case 'i': poll_us = (useconds_t)atoi(optarg); break;
        default: fprintf(stderr, "%s", usage); return 64;
        }
    }
    if (port <= 0 || optind >= argc || runs < 1) { fprintf(stderr, "%s", usage); return 64; }
    double samples[101];
    if (runs > 101) runs = 101;
    for (int i = 0; i < runs; i++) {
        samples[i] = one_run(port, timeout_ms, poll_us, argv + optind);
        if (samples[i] < 0) return 1;
        printf("run %d: %.1f ms\n", i + 1, samples[i]);
        usleep(100000);
    }
    qsort(samples, (size_t)runs, sizeof(double), compare_doubles);
    printf("STARTUP runs=%d median_ms=%.1f min_ms=%.1f max_ms=%.1f\n", runs, samples[runs / 2], samples[0], samples[runs - 1]);
    return 0;
}
