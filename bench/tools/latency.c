/*
 * latency: answer -> wake latency with one waiter.
 *
 * Each iteration, on a keep-alive "control" connection: POST /v1/alerts (two buttons);
 * on a keep-alive "waiter" connection: GET /v1/alerts/{id}/response?wait=60; a short pause
 * (the waiter must see no response meanwhile, so it is suspended); then the control
 * connection answers, and the time from writing the answer to receiving the waiter's
 * response is one sample. Prints p50/p99/max over the iterations.
 *
 * With -P WAIT_PORT the waiter connects to another server (an instance of the same cluster): the
 * answer is given on PORT and the waiter woken on WAIT_PORT.
 *
 * usage: latency -p PORT [-P WAIT_PORT] [-n ITERATIONS] [-H 127.0.0.1] [-s SETTLE_US]
 */
#include "http.h"

static const char CREATE_BODY[] = "{\"title\":\"Probe\",\"message\":\"latency\",\"buttons\":[\"Cancel\",\"OK\"]}";
static const char ANSWER_BODY[] = "{\"buttonIndex\":1}";

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0, wait_port = 0, iterations = 2000, settle_us = 2000, opt;
    while ((opt = getopt(argc, argv, "p:P:n:H:s:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'P': wait_port = atoi(optarg); break;
        case 'n': iterations = atoi(optarg); break;
        case 'H': host = optarg; break;
        case 's': settle_us = atoi(optarg); break;
        default: fprintf(stderr, "usage: latency -p PORT [-P WAIT_PORT] [-n N] [-H host] [-s settle_us]\n"); return 64;
        }
    }
    if (port <= 0) { fprintf(stderr, "latency: -p PORT required\n"); return 64; }
    if (wait_port <= 0) wait_port = port;
    int control = tcp_connect(host, port, 0, NULL), waiter = tcp_connect(host, wait_port, 0, NULL);
    if (control < 0 || waiter < 0) die("connect");
    rbuf cin = { 0 }, win = { 0 };
    double *samples = malloc(sizeof(double) * (size_t)iterations);
    int taken = 0, early = 0, errors = 0;
    char request[1024], id[128];
    double start = now_ms();
    for (int i = 0; i < iterations; i++) {
        int length = snprintf(request, sizeof request,
                              "POST /v1/alerts HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                              "Content-Length: %zu\r\n\r\n%s", host, sizeof CREATE_BODY - 1, CREATE_BODY);
        size_t total;
        if (write_all(control, request, (size_t)length) != 0) die("write create");
        int status = read_response(control, &cin, &total);
        const char *body = strstr(cin.data, "\r\n\r\n");
        if (status != 201 || body == NULL || json_id(body, total - (size_t)(body - cin.data), id, sizeof id) == 0) {
            fprintf(stderr, "latency: create answered %d\n", status);
            return 1;
        }
        rbuf_consume(&cin, total);

        length = snprintf(request, sizeof request,
                          "GET /v1/alerts/%s/response?wait=60 HTTP/1.1\r\nHost: %s\r\n\r\n", id, host);
        if (write_all(waiter, request, (size_t)length) != 0) die("write wait");
        struct pollfd p = { waiter, POLLIN, 0 };
        struct timespec pause = { 0, settle_us * 1000L };
        nanosleep(&pause, NULL);
        if (poll(&p, 1, 0) > 0) early++; /* answered before we answered: not a wake-up */

        length = snprintf(request, sizeof request,
                          "POST /v1/alerts/%s/response HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                          "Content-Length: %zu\r\n\r\n%s", id, host, sizeof ANSWER_BODY - 1, ANSWER_BODY);
        double t0 = now_ms();
        if (write_all(control, request, (size_t)length) != 0) die("write answer");
        status = read_response(waiter, &win, &total);
        double t1 = now_ms();
        if (status != 200) errors++;
        rbuf_consume(&win, total);
        samples[taken++] = t1 - t0;
        status = read_response(control, &cin, &total);
        if (status != 200) errors++;
        rbuf_consume(&cin, total);
    }
    double elapsed = now_ms() - start;
    qsort(samples, (size_t)taken, sizeof(double), compare_doubles);
    printf("LATENCY n=%d errors=%d early=%d p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f secs=%.1f\n", taken, errors,
           early, quantile(samples, (size_t)taken, 0.5), quantile(samples, (size_t)taken, 0.9),
           quantile(samples, (size_t)taken, 0.99), samples[taken - 1], elapsed / 1e3);
    return errors == 0 ? 0 : 1;
}
