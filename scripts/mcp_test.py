"""The MCP server of alertd, checked with the real MCP Python SDK as the client.

Usage: mcp_test.py ALERTD ALERTCTL WORK

Starts alertd (tokens, a data dir) and drives `alertctl mcp` over stdio with `mcp.Client`: the handshake and
version negotiation, the tools' schemas (valid JSON Schema; every structuredContent validated against its
outputSchema, and sent again as JSON text), `ask` answered over REST with a responder token (values, responder,
secure values withheld), progress notifications, expiry, cancellation, `approve` (allow, deny, a repeated
tool_use_id, expiry, an unreachable alertd), alertd killed with SIGKILL while `ask` waits, and the Claude Code
hook command (allow, deny, unreachable). Raw JSON-RPC over stdio checks the error objects.

The same tool checks run over Streamable HTTP against alertd's own `POST /mcp` (HTTPTransport: the SDK's
`streamable_http_client` with the token as a header), then the HTTP rules by hand (401, 403 for a foreign Origin,
405, a responder's ask refused, malformed JSON-RPC answered with error objects and never a 5xx) and a kill -9 while
`ask` waits: the client calls again with the same idempotencyKey, as an HTTP client must, and gets the answer once.

The transport-independent checks are `tool_suite(transport, alertd)`: a transport is an object with
`client(token, approval_timeout=None)` and `unreachable_client()` (None where the server is alertd itself), each an
async context manager that yields a connected `mcp.Client`.
"""

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import traceback
import urllib.error
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

STARTUP_SECONDS = 30
DEADLINE_SECONDS = 30
SUPPORTED = ("2025-06-18", "2025-11-25", "2026-07-28")
# What each connect mode of the SDK settles on: "auto" probes server/discover and adopts the stateless revision.
AGREED = {"auto": "2026-07-28", "legacy": "2025-11-25"}
WITHHELD = "[secure value withheld]"


class Checks:
    """Counts checks; a failed one is printed with what was seen, and the run goes on."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, seen=None):
        if ok:
            self.passed += 1
            print(f"ok     {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAILED {name}" + (f": {seen!r}" if seen is not None else ""), flush=True)
        return ok


checks = Checks()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Alertd:
    """alertd on a fixed loopback port with a data dir and three tokens; it can be SIGKILLed and started again."""

    def __init__(self, binary, work, extra=()):
        self.binary = binary
        self.work = work
        self.extra = list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tokens = {name: secrets.token_urlsafe(24) for name in ("producer", "responder", "admin")}
        self.process = None
        self.starts = 0

    def start(self):
        self.starts += 1
        env = dict(os.environ, ALERTD_TOKENS=",".join(f"{n}:{n}:{t}" for n, t in self.tokens.items()))
        out_path = self.work / f"alertd-{self.starts}.out"
        with open(out_path, "w") as out, open(self.work / f"alertd-{self.starts}.log", "w") as log:
            self.process = subprocess.Popen(
                [self.binary, "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", str(self.work / "data"),
                 *self.extra],
                stdout=out, stderr=log, env=env)
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            if re.search(r"^alertd listening on ", out_path.read_text(), re.MULTILINE):
                return
            time.sleep(0.05)
        self.process.kill()
        sys.exit(f"mcp-test: alertd did not start; see {self.work}")

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=DEADLINE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = "killed"
        checks.check("alertd exits 0 on SIGTERM", status == 0, status)

    def rest(self, method, path, token="responder", body=None):
        """(status, JSON body or None) of one REST call."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.tokens[token]}")
        try:
            with urllib.request.urlopen(request, timeout=DEADLINE_SECONDS) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    async def call(self, method, path, token="responder", body=None):
        return await anyio.to_thread.run_sync(lambda: self.rest(method, path, token, body))

    async def alerts(self, state="pending"):
        status, body = await self.call("GET", f"/v1/alerts?state={state}&limit=1000")
        return body["alerts"] if status == 200 else []

    async def pending_titled(self, title):
        """The id of the pending alert titled `title` once there is one (None after DEADLINE_SECONDS)."""
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            try:
                found = [a for a in await self.alerts() if a["title"] == title]
            except OSError:
                found = []
            if found:
                return found[-1]["id"]
            await anyio.sleep(0.02)
        return None

    async def answer(self, alert_id, button, values=None):
        body = {"button": button}
        if values is not None:
            body["values"] = values
        return await self.call("POST", f"/v1/alerts/{alert_id}/response", body=body)


async def eventually(condition):
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if await condition():
            return True
        await anyio.sleep(0.05)
    return False


class StdioTransport:
    """`alertctl mcp` as a subprocess of the SDK's stdio client."""

    def __init__(self, alertctl, alertd, progress_interval="200ms"):
        self.alertctl = alertctl
        self.alertd = alertd
        self.progress_interval = progress_interval
        self.name = "stdio"

    def parameters(self, token, url=None, extra=()):
        env = dict(os.environ, ALERTD_URL=url or self.alertd.url, ALERTD_TOKEN=self.alertd.tokens[token])
        return StdioServerParameters(
            command=self.alertctl, args=["mcp", "--progress-interval", self.progress_interval, *extra], env=env)

    def client(self, token="producer", approval_timeout=None, mode="auto"):
        extra = ["--approval-timeout", str(approval_timeout)] if approval_timeout else []
        return Client(self.parameters(token, extra=extra), mode=mode)

    def unreachable_client(self):
        return Client(self.parameters("producer", url=f"http://127.0.0.1:{free_port()}"), mode="auto")


class HTTPTransport:
    """alertd's own `POST /mcp`, through the SDK's Streamable HTTP client with the token as a bearer header.

    An approval that expires needs alertd's --mcp-approval-timeout: a second alertd, started on first use."""

    def __init__(self, alertd):
        self.alertd = alertd
        self.name = "http"
        self.expiring = None

    def client(self, token="producer", approval_timeout=None, mode="auto", alertd=None):
        if approval_timeout:
            if self.expiring is None:
                self.expiring = Alertd(self.alertd.binary, self.alertd.work / "expiring",
                                       ["--mcp-approval-timeout", str(approval_timeout), "--mcp-progress-interval", "1"])
                self.expiring.work.mkdir(exist_ok=True)
                self.expiring.start()
            alertd = self.expiring
        alertd = alertd or self.alertd
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {alertd.tokens[token]}"},
                                  timeout=httpx2.Timeout(DEADLINE_SECONDS, read=300))
        return Client(streamable_http_client(alertd.url + "/mcp", http_client=http), mode=mode)

    def unreachable_client(self):
        return None  # the MCP server is alertd itself: no alertd, no server to call

    def stop(self):
        if self.expiring is not None:
            self.expiring.stop()


class Tools:
    """Calls tools and checks each result: structuredContent valid against the outputSchema, the same JSON as text."""

    def __init__(self, client, label):
        self.client = client
        self.label = label
        self.schemas = {}

    async def load(self):
        listed = await self.client.list_tools()
        self.schemas = {tool.name: tool.output_schema for tool in listed.tools}
        return listed.tools

    async def call(self, name, arguments, progress=None):
        result = await self.client.call_tool(name, arguments, progress_callback=progress)
        if not result.is_error:
            structured = result.structured_content
            try:
                jsonschema.validate(structured, self.schemas[name])
                valid = True
            except jsonschema.ValidationError as error:
                valid = error.message
            checks.check(f"{self.label}: {name}'s structuredContent validates against its outputSchema",
                         valid is True, valid)
            texts = [block.text for block in result.content if block.type == "text"]
            checks.check(f"{self.label}: {name}'s text block is the same JSON", texts and json.loads(texts[0]) == structured,
                         texts)
        return result


@asynccontextmanager
async def tools_of(transport, label, **options):
    """A connected client whose calls are checked (`Tools`), labelled `label` in the output."""
    async with transport.client(**options) as client:
        tools = Tools(client, label)
        await tools.load()
        yield tools


async def tool_suite(transport, alertd):
    """Every check that holds whatever the transport."""
    label = transport.name

    # The handshake and version negotiation: "auto" probes server/discover (2026-07-28), "legacy" initializes.
    for mode in ("auto", "legacy"):
        async with transport.client(mode=mode) as client:
            checks.check(f"{label}: handshake ({mode}) agrees on {AGREED[mode]}", client.protocol_version == AGREED[mode],
                         client.protocol_version)
            checks.check(f"{label}: serverInfo names alertd", client.server_info and client.server_info.name == "alertd",
                         client.server_info)
            if mode == "legacy":  # ping is gone from 2026-07-28, which "auto" would pick with a server that had it
                await client.send_ping()

    async with tools_of(transport, label) as tools:
        listed = await tools.load()
        names = [tool.name for tool in listed]
        checks.check(f"{label}: tools/list has the seven tools",
                     names == ["ask", "create", "wait", "get", "dismiss", "list", "approve"], names)
        for tool in listed:
            for which, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema)):
                try:
                    jsonschema.Draft202012Validator.check_schema(schema)
                    valid = True
                except jsonschema.SchemaError as error:
                    valid = error.message
                checks.check(f"{label}: {tool.name}'s {which} is valid JSON Schema", valid is True, valid)
            checks.check(f"{label}: {tool.name} has annotations", tool.annotations is not None)


    # The tools on both wires: the initialize handshake's (legacy) and the stateless revision's (auto).
    for mode in ("legacy", "auto"):
        async with tools_of(transport, f"{label}-{mode}", mode=mode) as tools:
            await ask_checks(tools, alertd, tools.label)
            await step_checks(tools, alertd, tools.label)
            await approve_checks(tools, alertd, tools.label)

    async with tools_of(transport, label, approval_timeout=1) as tools:
        result = await tools.call("approve", {"tool_name": "Expiring", "input": {"x": 1}})
        checks.check(f"{label}: approve that expires denies, saying so",
                     result.structured_content.get("behavior") == "deny"
                     and "expired" in result.structured_content.get("message", ""), result.structured_content)

    async with transport.client(token="responder") as client:
        result = await client.call_tool("ask", {"title": "Not mine to ask"})
        checks.check(f"{label}: a responder-only token cannot create: isError saying so",
                     result.is_error and "create" in result.content[0].text, result.content)

    unreachable = transport.unreachable_client()
    if unreachable is None:
        return
    async with unreachable as client:
        tools = Tools(client, label)
        await tools.load()
        result = await tools.call("approve", {"tool_name": "Bash", "input": {"command": "ls"}})
        checks.check(f"{label}: approve with alertd unreachable denies, saying so",
                     result.structured_content.get("behavior") == "deny"
                     and "could not be reached" in result.structured_content.get("message", ""),
                     result.structured_content)


async def ask_checks(tools, alertd, label):
    # ask answered over REST by a responder: values, the responder, the secure value withheld; progress meanwhile.
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    outcome = {}

    async def ask():
        outcome["result"] = await tools.call("ask", {
            "title": f"Login {label}", "buttons": ["Cancel", "Log in"],
            "fields": [{"placeholder": "User"}, {"placeholder": "Password", "secure": True}],
        }, progress=on_progress)

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        alert_id = await alertd.pending_titled(f"Login {label}")
        checks.check(f"{label}: ask creates a pending alert", alert_id is not None)

        async def two_progress():
            return len(progress) >= 2

        checks.check(f"{label}: progress notifications arrive while ask waits", await eventually(two_progress), progress)
        status, _ = await alertd.answer(alert_id, "Log in", ["alice", "s3cret"])
        checks.check(f"{label}: the responder answers over REST", status == 200, status)
    answer = outcome["result"].structured_content
    checks.check(f"{label}: ask returns the answer with its values, the secure one withheld",
                 answer["buttonTitle"] == "Log in" and answer["values"] == ["alice", WITHHELD]
                 and answer["alertId"] == alert_id and answer["resolution"] == "answered", answer)
    checks.check(f"{label}: ask names the responder", answer["responder"] == "responder", answer)
    values = [value for value, _ in progress]
    checks.check(f"{label}: progress increases", values == sorted(values) and len(set(values)) == len(values), values)

    # Expiry.
    result = await tools.call("ask", {"title": f"Expiring {label}", "buttons": ["No", "Yes"], "timeout": 1})
    checks.check(f"{label}: an ask that expires returns resolution expired",
                 result.structured_content["resolution"] == "expired" and not result.structured_content["ok"],
                 result.structured_content)

    # Cancellation stops the wait at once and withdraws the alert.
    with anyio.move_on_after(DEADLINE_SECONDS):
        async with anyio.create_task_group() as group:
            group.start_soon(tools.call, "ask", {"title": f"Cancelled {label}"})
            alert_id = await alertd.pending_titled(f"Cancelled {label}")
            started = time.monotonic()
            group.cancel_scope.cancel()
    checks.check(f"{label}: a cancelled ask stops waiting at once", time.monotonic() - started < 2)

    async def withdrawn():
        status, body = await alertd.call("GET", f"/v1/alerts/{alert_id}")
        return status == 200 and body["state"] == "resolved" and body["result"]["resolution"] == "dismissed"

    checks.check(f"{label}: the cancelled ask's alert is withdrawn", await eventually(withdrawn))

    # Bad arguments are tool errors naming the argument.
    result = await tools.client.call_tool("ask", {"title": "x", "style": "popup"})
    checks.check(f"{label}: a bad argument is isError naming it",
                 result.is_error and "/style" in result.content[0].text, result.content)


async def step_checks(tools, alertd, label):
    created = (await tools.call("create", {"message": f"Step {label}", "buttons": ["No", "Yes"],
                                           "idempotencyKey": f"step-{label}"})).structured_content
    again = (await tools.call("create", {"message": f"Step {label}", "buttons": ["No", "Yes"],
                                         "idempotencyKey": f"step-{label}"})).structured_content
    checks.check(f"{label}: create with the same idempotencyKey returns the same alert", created["id"] == again["id"])
    pending = (await tools.call("wait", {"id": created["id"], "seconds": 0.2})).structured_content
    checks.check(f"{label}: wait past its bound says pending", pending["state"] == "pending", pending)
    listed = (await tools.call("list", {})).structured_content
    checks.check(f"{label}: list has the caller's pending alert", created["id"] in [a["id"] for a in listed["alerts"]])
    await alertd.answer(created["id"], "Yes")
    resolved = (await tools.call("wait", {"id": created["id"]})).structured_content
    checks.check(f"{label}: wait returns the answer", resolved["result"]["buttonTitle"] == "Yes", resolved)
    got = (await tools.call("get", {"id": created["id"]})).structured_content
    checks.check(f"{label}: get shows it resolved", got["state"] == "resolved", got)
    other = (await tools.call("create", {"message": f"Withdraw {label}"})).structured_content
    dismissed = (await tools.call("dismiss", {"id": other["id"]})).structured_content
    checks.check(f"{label}: dismiss withdraws it", dismissed["result"]["resolution"] == "dismissed"
                 and not dismissed["alreadyResolved"], dismissed)
    missing = await tools.client.call_tool("get", {"id": "no-such-alert"})
    checks.check(f"{label}: get of an unknown id is isError", missing.is_error, missing.content)


async def approve_checks(tools, alertd, label):
    tool_input = {"command": "rm -rf build", "description": "Clean the build"}
    use_id = f"toolu_{label}_{secrets.token_hex(4)}"

    async def approve(results, arguments):
        results.append(await tools.call("approve", arguments))

    results = []
    async with anyio.create_task_group() as group:
        group.start_soon(approve, results, {"tool_name": "Bash", "input": tool_input, "tool_use_id": use_id})
        alert_id = await alertd.pending_titled("Allow Bash?")
        status, alert = await alertd.call("GET", f"/v1/alerts/{alert_id}")
        checks.check(f"{label}: the approval alert has the contract's shape",
                     alert["message"] == json.dumps(tool_input, indent=2, sort_keys=True, ensure_ascii=False)
                     and [b["title"] for b in alert["buttons"]] == ["Deny", "Allow"]
                     and alert["buttons"][0]["style"] == "cancel"
                     and [f["placeholder"] for f in alert["fields"]] == ["Reason (optional)"], alert)
        await alertd.answer(alert_id, "Allow", [""])
    text = results[0].content[0].text
    checks.check(f"{label}: approve allow returns exactly behavior allow and updatedInput equal to the input",
                 json.loads(text) == {"behavior": "allow", "updatedInput": tool_input}
                 and list(json.loads(text)) == ["behavior", "updatedInput"], text)

    count = len(await alertd.alerts("all"))
    repeat = await tools.call("approve", {"tool_name": "Bash", "input": tool_input, "tool_use_id": use_id})
    checks.check(f"{label}: a repeated tool_use_id makes no second alert and answers as the first",
                 len(await alertd.alerts("all")) == count and repeat.structured_content["behavior"] == "allow",
                 repeat.structured_content)

    results = []
    async with anyio.create_task_group() as group:
        group.start_soon(approve, results, {"tool_name": "Deploy", "input": {"env": "prod"}})
        alert_id = await alertd.pending_titled("Allow Deploy?")
        await alertd.answer(alert_id, "Deny", ["not on Fridays"])
    checks.check(f"{label}: approve deny carries the responder and the reason",
                 json.loads(results[0].content[0].text)
                 == {"behavior": "deny", "message": "Denied by responder: not on Fridays"}, results[0].content)


async def restart_checks(transport, alertd):
    """alertd SIGKILLed while ask waits, then started again on its data dir: the same alert, its answer, once."""
    label = transport.name
    async with tools_of(transport, label) as tools:
        outcome = []
        async with anyio.create_task_group() as group:
            async def ask():
                outcome.append(await tools.call("ask", {"title": f"Survive {label}", "buttons": ["No", "Yes"]}))

            group.start_soon(ask)
            alert_id = await alertd.pending_titled(f"Survive {label}")
            before = len(await alertd.alerts("all"))
            await anyio.to_thread.run_sync(alertd.kill9)
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(alertd.start)
            status, _ = await alertd.answer(alert_id, "Yes")
            checks.check(f"{label}: the alert survived the kill -9 and is answered", status == 200, status)
        checks.check(f"{label}: ask returns that answer once, for the same alert",
                     len(outcome) == 1 and outcome[0].structured_content["alertId"] == alert_id
                     and outcome[0].structured_content["buttonTitle"] == "Yes", [o.structured_content for o in outcome])
        checks.check(f"{label}: no second alert was made", len(await alertd.alerts("all")) == before)


async def http_restart_checks(transport, alertd):
    """alertd SIGKILLed while ask waits over /mcp: the POST's stream breaks, so the call fails. What an HTTP client
    must do: call again with the same idempotencyKey until alertd answers; alertd kept the alert (a broken
    connection is no cancellation), the retry waits on it, and the answer comes once, for the same alert."""
    label = transport.name
    arguments = {"title": f"Survive {label}", "buttons": ["No", "Yes"],
                 "idempotencyKey": f"survive-{label}-{secrets.token_hex(4)}"}
    outcome, broken = [], []

    async def ask_until_answered():
        deadline = time.monotonic() + 3 * DEADLINE_SECONDS
        while time.monotonic() < deadline:
            try:
                async with tools_of(transport, label) as tools:
                    outcome.append(await tools.call("ask", arguments))
                    return
            except Exception as error:  # the broken stream, then connection refused until alertd is back
                broken.append(f"{type(error).__name__}: {error}")
                await anyio.sleep(0.2)

    async with anyio.create_task_group() as group:
        group.start_soon(ask_until_answered)
        alert_id = await alertd.pending_titled(f"Survive {label}")
        before = len(await alertd.alerts("all"))
        await anyio.to_thread.run_sync(alertd.kill9)
        await anyio.sleep(0.5)
        await anyio.to_thread.run_sync(alertd.start)
        status, _ = await alertd.answer(alert_id, "Yes")
        checks.check(f"{label}: the alert survived the kill -9 and is answered", status == 200, status)
    checks.check(f"{label}: the call in flight failed when alertd died", len(broken) >= 1, broken)
    checks.check(f"{label}: the retried ask returns that answer once, for the same alert",
                 len(outcome) == 1 and outcome[0].structured_content["alertId"] == alert_id
                 and outcome[0].structured_content["buttonTitle"] == "Yes", [o.structured_content for o in outcome])
    checks.check(f"{label}: no second alert was made", len(await alertd.alerts("all")) == before)


async def raw_http_checks(alertd):
    """POST /mcp by hand: the HTTP rules, and JSON-RPC error objects for malformed messages (never a 5xx)."""
    def post(body, token="producer", headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(alertd.url + "/mcp", data=data, method="POST")
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json, text/event-stream")
        if token:
            request.add_header("Authorization", f"Bearer {alertd.tokens[token]}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=DEADLINE_SECONDS) as response:
                text = response.read()
                return response.status, response.headers.get("Content-Type", ""), json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, error.headers.get("Content-Type", ""), json.loads(text) if text else None

    async def call(*arguments, **options):
        return await anyio.to_thread.run_sync(lambda: post(*arguments, **options))

    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    status, kind, body = await call(ping, token=None)
    checks.check("http: /mcp without a token is 401 problem+json",
                 status == 401 and kind.startswith("application/problem+json"), (status, body))
    status, kind, body = await call(ping, headers={"Origin": "http://evil.example"})
    checks.check("http: a foreign Origin is 403", status == 403 and body["type"].endswith("origin-not-allowed"),
                 (status, body))
    status, _, body = await call({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "ask", "arguments": {"title": "Responder asks"}}}, token="responder")
    checks.check("http: a responder-only token cannot ask (isError naming the role)",
                 status == 200 and body["result"]["isError"] and "responder role" in body["result"]["content"][0]["text"],
                 body)
    for raw, expected_status, code in ((b'{"jsonrpc":"2.0","id":1,', 400, -32700),
                                       (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600),
                                       (b'{"jsonrpc":"2.0","id":3,"method":"no/such"}', 200, -32601)):
        status, kind, body = await call(raw)
        checks.check(f"http: {raw.decode()[:30]} gets error {code} with {expected_status}",
                     status == expected_status and kind.startswith("application/json") and body["error"]["code"] == code,
                     (status, body))
    status, _, body = await call({"jsonrpc": "2.0", "method": "notifications/initialized"})
    checks.check("http: a notification is 202 with no body", status == 202 and body is None, (status, body))

    def get():
        request = urllib.request.Request(alertd.url + "/mcp", method="GET")
        request.add_header("Authorization", f"Bearer {alertd.tokens['producer']}")
        try:
            urllib.request.urlopen(request, timeout=DEADLINE_SECONDS)
            return None, None
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Allow")

    status, allow = await anyio.to_thread.run_sync(get)
    checks.check("http: GET /mcp is 405 with Allow: POST (no server-initiated stream)", (status, allow) == (405, "POST"),
                 (status, allow))


async def raw_stdio_checks(alertctl, alertd):
    """JSON-RPC over stdio by hand: version negotiation, the error objects, only protocol on stdout."""
    env = dict(os.environ, ALERTD_URL=alertd.url, ALERTD_TOKEN=alertd.tokens["producer"])
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
        {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}},
        "{not json",
        [{"jsonrpc": "2.0", "id": 3, "method": "ping"}],
        {"jsonrpc": "2.0", "id": 4, "method": "no/such"},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 6, "method": "ping"},
    ]
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = await anyio.to_thread.run_sync(lambda: subprocess.run(
        [alertctl, "mcp"], input=text.encode(), capture_output=True, env=env, timeout=DEADLINE_SECONDS))
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    checks.check("stdio: every stdout line is a JSON-RPC message", all(r.get("jsonrpc") == "2.0" for r in replies), done.stdout)
    by_id = {r.get("id"): r for r in replies if r.get("id") is not None}
    checks.check("stdio: initialize 2025-06-18 answers 2025-06-18",
                 by_id.get(1, {}).get("result", {}).get("protocolVersion") == "2025-06-18", by_id.get(1))
    checks.check("stdio: initialize of an unknown version answers the newest",
                 by_id.get(2, {}).get("result", {}).get("protocolVersion") == "2025-11-25", by_id.get(2))
    codes = sorted(r["error"]["code"] for r in replies if r.get("id") is None and "error" in r)
    checks.check("stdio: not JSON is -32700 and a batch -32600, both with id null", codes == [-32700, -32600], codes)
    checks.check("stdio: an unknown method is -32601", by_id.get(4, {}).get("error", {}).get("code") == -32601, by_id.get(4))
    error = by_id.get(5, {}).get("error", {})
    checks.check("stdio: tools/call without a name is -32602 naming it",
                 error.get("code") == -32602 and "name" in error.get("message", ""), error)
    checks.check("stdio: a notification gets no reply; ping answers", by_id.get(6, {}).get("result") == {}
                 and len(replies) == 7, replies)
    checks.check("stdio: logs go to stderr", b"alertctl mcp" in done.stderr, done.stderr)


async def hook_checks(alertctl, alertd):
    """`alertctl hook claude-code`: the exact JSON Claude Code reads, for allow, deny and an unreachable alertd."""
    def hook_input(tool_use_id):
        return json.dumps({"session_id": "sess-1", "cwd": "/work/project", "permission_mode": "default",
                           "hook_event_name": "PreToolUse", "tool_name": "Write",
                           "tool_input": {"file_path": "/tmp/x", "content": "hi"}, "tool_use_id": tool_use_id})

    def run_hook(url, tool_use_id, extra=()):
        env = dict(os.environ, ALERTD_URL=url, ALERTD_TOKEN=alertd.tokens["producer"])
        return subprocess.run([alertctl, "hook", "claude-code", *extra], input=hook_input(tool_use_id).encode(),
                              capture_output=True, env=env, timeout=DEADLINE_SECONDS)

    def expected(decision, reason):
        return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                                  "permissionDecisionReason": reason}}, separators=(",", ":"),
                          ensure_ascii=False) + "\n"

    for button, values, decision, reason in (("Allow", [""], "allow", "Allowed by responder"),
                                             ("Deny", ["no writes"], "deny", "Denied by responder: no writes")):
        done = {}
        async with anyio.create_task_group() as group:
            async def hook():
                done["run"] = await anyio.to_thread.run_sync(lambda: run_hook(alertd.url, f"toolu_hook_{button}"))

            group.start_soon(hook)
            alert_id = await alertd.pending_titled("Allow Write?")
            status, alert = await alertd.call("GET", f"/v1/alerts/{alert_id}")
            checks.check(f"hook: the alert shows the input, then the session and directory ({decision})",
                         alert["message"].endswith("\n\nSession: sess-1\nDirectory: /work/project")
                         and alert["message"].startswith('{\n  "content": "hi",'), alert["message"])
            await alertd.answer(alert_id, button, values)
        run = done["run"]
        checks.check(f"hook: {decision} prints exactly the JSON Claude Code reads, exit 0",
                     run.stdout.decode() == expected(decision, reason) and run.returncode == 0,
                     (run.stdout, run.returncode, run.stderr))

    run = await anyio.to_thread.run_sync(lambda: run_hook(f"http://127.0.0.1:{free_port()}", "toolu_hook_down"))
    output = json.loads(run.stdout or b"{}").get("hookSpecificOutput", {})
    checks.check("hook: an unreachable alertd prints ask, exit 0",
                 output.get("permissionDecision") == "ask" and run.returncode == 0
                 and list(json.loads(run.stdout)) == ["hookSpecificOutput"], (run.stdout, run.stderr))

    run = await anyio.to_thread.run_sync(lambda: run_hook(alertd.url, "toolu_hook_slow", ["--timeout", "1"]))
    output = json.loads(run.stdout or b"{}").get("hookSpecificOutput", {})
    checks.check("hook: no answer within --timeout prints ask", output.get("permissionDecision") == "ask",
                 (run.stdout, run.stderr))


async def main():
    alertd_binary, alertctl, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    alertd = Alertd(alertd_binary, work, ["--mcp-progress-interval", "1"])
    alertd.start()
    transport = StdioTransport(alertctl, alertd)
    http = HTTPTransport(alertd)
    try:
        await raw_stdio_checks(alertctl, alertd)
        await tool_suite(transport, alertd)
        await restart_checks(transport, alertd)
        await hook_checks(alertctl, alertd)
        await raw_http_checks(alertd)
        await tool_suite(http, alertd)
        await http_restart_checks(http, alertd)
    except Exception as error:  # a crash in the run is a failure, reported with the rest
        traceback.print_exc()
        checks.check("the MCP checks run to their end", False, f"{type(error).__name__}: {error}")
    finally:
        http.stop()
        alertd.stop()
    print(f"mcp-test: {checks.passed} passed, {checks.failed} failed", flush=True)
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    anyio.run(main)
