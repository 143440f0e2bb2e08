#!/usr/bin/env python3
"""answer -> MCP tool result over stdio: `ask` through `alertctl mcp`, answered over REST, p50/p99.

Usage: bench/mcp_latency.py [ALERTD [ALERTCTL]] [--asks N]
  (default .build/release/alertd and .build/release/alertctl; build them with `make release`)

Starts alertd (memory only, open mode, a free loopback port) and `alertctl mcp`, speaks raw JSON-RPC over its
stdin and stdout (no SDK in the way), and N times: calls `ask`, waits until the alert is pending and alertctl's
long-poll has had time to park (20 ms), then times from just before the REST answer is sent to the moment the
tool result's line is read from alertctl's standard output. Prints the answer -> result p50 and p99, and the
REST answer's own round trip for comparison. Standard library only.
"""

import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    asks = 200
    if "--asks" in sys.argv:
        asks = int(sys.argv[sys.argv.index("--asks") + 1])
        args = [a for a in args if a != str(asks)]
    alertd_bin = args[0] if len(args) > 0 else ".build/release/alertd"
    alertctl_bin = args[1] if len(args) > 1 else ".build/release/alertctl"
    port = free_port()
    alertd = subprocess.Popen([alertd_bin, "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = alertd.stdout.readline()
    if not re.search(r"listening on", line):
        sys.exit(f"alertd did not start: {line!r}")
    url = f"http://127.0.0.1:{port}"
    mcp = subprocess.Popen([alertctl_bin, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, env=dict(os.environ, ALERTD_URL=url), bufsize=0)
    rest = http.client.HTTPConnection("127.0.0.1", port)

    def send(message):
        mcp.stdin.write((json.dumps(message) + "\n").encode())

    def receive():
        return json.loads(mcp.stdout.readline())

    def request(method, path, body=None):
        rest.request(method, path, body=json.dumps(body) if body is not None else None)
        response = rest.getresponse()
        return response.status, json.loads(response.read() or b"null")

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}})
        receive()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        latencies, answers = [], []
        for number in range(1, asks + 1):
            send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                  "params": {"name": "ask", "arguments": {"title": f"Bench {number}", "buttons": ["No", "Yes"]}}})
            alert_id = None
            while alert_id is None:
                _, listed = request("GET", "/v1/alerts")
                pending = listed["alerts"]
                alert_id = pending[0]["id"] if pending else None
                if alert_id is None:
                    time.sleep(0.001)
            time.sleep(0.02)
            start = time.perf_counter()
            status, _ = request("POST", f"/v1/alerts/{alert_id}/response", {"button": "Yes"})
            answered = time.perf_counter()
            reply = receive()
            done = time.perf_counter()
            if status != 200 or reply.get("id") != number or reply["result"]["structuredContent"]["buttonTitle"] != "Yes":
                sys.exit(f"unexpected: {status} {reply}")
            latencies.append((done - start) * 1000)
            answers.append((answered - start) * 1000)
        print(f"ask over stdio, answer -> tool result, {asks} asks: p50 {statistics.median(latencies):.2f} ms, "
              f"p99 {percentile(latencies, 0.99):.2f} ms (max {max(latencies):.2f} ms)")
        after = [total - answer for total, answer in zip(latencies, answers)]
        print(f"  the REST answer's own round trip: p50 {statistics.median(answers):.2f} ms, "
              f"p99 {percentile(answers, 0.99):.2f} ms; the result after the answer's response: "
              f"p50 {statistics.median(after):.2f} ms, p99 {percentile(after, 0.99):.2f} ms")
        print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        # One line for bench/run.sh (key=value).
        print(f"MCP_STDIO asks={asks} p50={statistics.median(latencies):.2f} p99={percentile(latencies, 0.99):.2f}")
    finally:
        mcp.stdin.close()
        mcp.wait(timeout=10)
        alertd.terminate()
        alertd.wait(timeout=10)


if __name__ == "__main__":
    main()
