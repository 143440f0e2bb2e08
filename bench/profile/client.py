#!/usr/bin/env python3
"""Exactly N requests over C keep-alive connections (one thread each), for instruction profiles.

usage: client.py -n N [-c CONNECTIONS] [-b BODY_FILE] URL

GET URL, or POST BODY_FILE as application/json with -b. Prints "requests=N errors=E secs=S";
exits 1 if a response was not 2xx. Standard library only; runs outside valgrind (callgrind.sh).
"""
import argparse
import http.client
import threading
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, required=True)
    parser.add_argument("-c", type=int, default=4)
    parser.add_argument("-b")
    parser.add_argument("url")
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.url)
    target = url.path + ("?" + url.query if url.query else "")
    body = open(args.b, "rb").read() if args.b else None
    errors = [0] * args.c

    def run(index, count):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        for _ in range(count):
            if body is None:
                connection.request("GET", target)
            else:
                connection.request("POST", target, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if not 200 <= response.status < 300:
                errors[index] += 1
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(i, args.n // args.c + (i < args.n % args.c))) for i in range(args.c)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"requests={args.n} errors={sum(errors)} secs={time.monotonic() - started:.2f}")
    raise SystemExit(1 if sum(errors) else 0)


main()
