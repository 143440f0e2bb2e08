#!/usr/bin/env python3
"""MCP over HTTP under load: alertd's `POST /mcp` against its plain long-poll. Not part of a timed test.

Usage: bench/mcp_load.py [--alertd .build/release/alertd] [--calls 1000] [--runs 200]

Three figures, each on a fresh alertd (loopback, tokens, memory only, access log off, no wait limit):

1. Memory per waiting call: the server's RSS with N `ask` calls waiting through /mcp (each an event stream that
   has started), against N plain long-polls (`GET /v1/alerts/{id}/response?wait=300`). All wait on one alert (the
   asks share one idempotencyKey), so the figure is the cost of a waiting request, not of an alert. Goal: an
   ask costs at most 2x a long-poll.
2. Answer -> result of the last one: one REST answer to that alert, then the time until the last of the N waiting
   calls has its tool result (goal < 1 s); the long-polls' figure beside it.
3. Answer -> tool result, one call at a time, p50 and p99 over --runs asks (goal p99 < 10 ms), and the same for a
   long-poll: the REST answer is sent once the call waits (its event stream opened), the clock stops at the
   result's last byte.

Only the standard library: raw HTTP/1.1 over asyncio, one connection per waiting call.
"""

import argparse
import asyncio
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import time

PRODUCER = "bench-producer-" + secrets.token_hex(8)
RESPONDER = "bench-responder-" + secrets.token_hex(8)
ADMIN = "bench-admin-" + secrets.token_hex(8)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"^VmRSS:\s+(\d+)", status.read(), re.MULTILINE).group(1))


class Server:
    def __init__(self, binary):
        env = dict(os.environ, ALERTD_TOKENS=f"bench:producer:{PRODUCER},alice:responder:{RESPONDER},ops:admin:{ADMIN}")
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", "0", "--access-log", "off", "--client-wait-limit", "0",
             "--client-connection-limit", "0", "--mcp-progress-interval", "10"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not match:
            sys.exit(f"alertd did not start: {line!r}")
        self.port = int(match.group(1))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)

    @property
    def rss(self):
        return rss_kb(self.process.pid)


async def connect(port):
    return await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)


def request(method, target, token, body=None, accept=None):
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    if accept:
        head += f"Accept: {accept}\r\n"
    return (head + "\r\n").encode() + data


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return status, headers


async def read_body(reader, headers):
    """The whole body: by Content-Length, or chunked until the last chunk."""
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return body
        body += await reader.readexactly(size)
        await reader.readexactly(2)


async def rest(port, method, target, token, body=None):
    reader, writer = await connect(port)
    writer.write(request(method, target, token, body))
    status, headers = await read_head(reader)
    data = await read_body(reader, headers)
    writer.close()
    return status, json.loads(data) if data else None


async def create(port, title):
    status, alert = await rest(port, "POST", "/v1/alerts", PRODUCER, {"title": title, "buttons": ["No", "Yes"]})
    assert status == 201, (status, alert)
    return alert["id"]


async def answer(port, alert_id):
    status, result = await rest(port, "POST", f"/v1/alerts/{alert_id}/response", RESPONDER, {"button": "Yes"})
    assert status == 200, (status, result)


async def pending_id(port, title):
    while True:
        status, page = await rest(port, "GET", "/v1/alerts?limit=1000", RESPONDER)
        found = [a["id"] for a in page["alerts"] if a["title"] == title]
        if found:
            return found[0]
        await asyncio.sleep(0.005)


async def waiters(port):
    reader, writer = await connect(port)
    writer.write(request("GET", "/metrics", ADMIN))
    status, headers = await read_head(reader)
    text = (await read_body(reader, headers)).decode()
    writer.close()
    match = re.search(r"^alertd_waiters (\d+)", text, re.MULTILINE)
    return int(match.group(1)) if match else -1


class Ask:
    """One `ask` over /mcp: the POST, the stream's head once it waits, the result."""

    def __init__(self, port, title, key, request_id):
        self.port = port
        self.body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                     "params": {"name": "ask", "arguments": {"title": title, "buttons": ["No", "Yes"],
                                                             "idempotencyKey": key},
                                "_meta": {"progressToken": request_id}}}

    async def start(self):
        self.reader, self.writer = await connect(self.port)
        self.writer.write(request("POST", "/mcp", PRODUCER, self.body, accept="application/json, text/event-stream"))
        status, self.headers = await read_head(self.reader)
        assert status == 200 and self.headers.get("content-type", "").startswith("text/event-stream"), \
            (status, self.headers)

    async def result(self):
        """The response's bytes arrive as the stream's last chunk; the clock stops when it is read."""
        data = await read_body(self.reader, self.headers)
        self.writer.close()
        messages = [json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: ")]
        response = messages[-1]
        assert "result" in response and not response["result"]["isError"], response
        return response


class LongPoll:
    def __init__(self, port, alert_id):
        self.port = port
        self.alert_id = alert_id

    async def start(self):
        self.reader, self.writer = await connect(self.port)
        self.writer.write(request("GET", f"/v1/alerts/{self.alert_id}/response?wait=300", PRODUCER))
        await self.writer.drain()

    async def result(self):
        status, headers = await read_head(self.reader)
        data = await read_body(self.reader, headers)
        self.writer.close()
        assert status == 200, (status, data)
        return data


async def until(condition, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await condition():
            return True
        await asyncio.sleep(0.05)
    return False


async def hold(server, kind, calls):
    """N waiting calls of `kind` on one alert: (RSS before kB, RSS held kB, answer -> last result s)."""
    port = server.port
    title = f"Load {kind}"
    key = "load-" + secrets.token_hex(6)
    if kind == "ask":
        # The alert first, by the same key the asks give, so that RSS before already holds it.
        warm = Ask(port, title, key, 0)
        task = asyncio.ensure_future(warm.start())
        alert_id = await pending_id(port, title)
        await task
    else:
        alert_id = await create(port, title)
        warm = LongPoll(port, alert_id)
        await warm.start()
    await until(lambda: _equals(waiters(port), 1))
    await asyncio.sleep(0.5)
    before = server.rss
    held = [Ask(port, title, key, i + 1) if kind == "ask" else LongPoll(port, alert_id) for i in range(calls)]
    for start in range(0, calls, 100):
        await asyncio.gather(*(call.start() for call in held[start:start + 100]))
    ok = await until(lambda: _equals(waiters(port), calls + 1))
    assert ok, f"{kind}: not all {calls} calls waited ({await waiters(port)})"
    await asyncio.sleep(0.5)
    during = server.rss
    results = [asyncio.ensure_future(call.result()) for call in held + [warm]]
    started = time.perf_counter()
    await answer(port, alert_id)
    await asyncio.gather(*results)
    last = time.perf_counter() - started
    return before, during, last


async def _equals(awaitable, value):
    return await awaitable == value


async def one_by_one(server, kind, runs):
    """Answer -> result, one call at a time: the latencies in ms."""
    port = server.port
    latencies = []
    for run in range(runs):
        title = f"Single {kind} {run}"
        if kind == "ask":
            call = Ask(port, title, f"single-{secrets.token_hex(6)}", run + 1)
            await call.start()  # the stream's head: the call waits
            alert_id = await pending_id(port, title)
        else:
            alert_id = await create(port, title)
            call = LongPoll(port, alert_id)
            await call.start()
            await until(lambda: _equals(waiters(port), 1), 10)
        result = asyncio.ensure_future(call.result())
        started = time.perf_counter()
        await answer(port, alert_id)
        await result
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alertd", default=".build/release/alertd")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=200)
    options = parser.parse_args()
    figures, last_ms, p50, p99 = {}, {}, {}, {}
    for kind in ("longpoll", "ask"):
        server = Server(options.alertd)
        try:
            before, during, last = await hold(server, kind, options.calls)
            figures[kind] = (during - before) / options.calls
            last_ms[kind] = last * 1000
            print(f"{kind:8}: {options.calls} waiting: RSS {before / 1024:.1f} -> {during / 1024:.1f} MB, "
                  f"{figures[kind]:.2f} kB per waiting call; answer -> last result {last * 1000:.0f} ms", flush=True)
        finally:
            server.stop()
    print(f"ask / long-poll memory per waiting call: {figures['ask'] / figures['longpoll']:.2f}x (goal <= 2x)")
    for kind in ("longpoll", "ask"):
        server = Server(options.alertd)
        try:
            latencies = await one_by_one(server, kind, options.runs)
        finally:
            server.stop()
        p50[kind], p99[kind] = statistics.median(latencies), percentile(latencies, 99)
        print(f"{kind:8}: answer -> result over {options.runs} calls: p50 {p50[kind]:.2f} ms, "
              f"p99 {p99[kind]:.2f} ms, max {max(latencies):.2f} ms", flush=True)
    # One line for bench/run.sh (key=value).
    print(f"MCP_LOAD calls={options.calls} runs={options.runs} ask_kb={figures['ask']:.2f} "
          f"longpoll_kb={figures['longpoll']:.2f} ratio={figures['ask'] / figures['longpoll']:.2f} "
          f"ask_last_ms={last_ms['ask']:.0f} longpoll_last_ms={last_ms['longpoll']:.0f} "
          f"ask_p50={p50['ask']:.2f} ask_p99={p99['ask']:.2f} longpoll_p50={p50['longpoll']:.2f} "
          f"longpoll_p99={p99['longpoll']:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
