"""The generated-client test (scripts/generated-client.sh runs it; `make test` runs that).

Generates a Python client from openapi.yaml with openapi-python-client (any warning fails the run),
starts a real alertd with one token per role, and drives an alert's whole lifecycle through the
generated code only: a login alert built from the typed models, a long-poll on its response, an
answer with values, a second answer read as a typed 409 problem carrying the winning Result, the
JSON form of the event feed, and a few typed errors on the way. Every request and response of the
run goes through openapi-core, which checks it against openapi.yaml (problem+json included).

Usage: python generated_client_lifecycle.py ALERTD_BIN OPENAPI_YAML WORK_DIR
Prints one line per check and closes with `generated-client: N passed, N failed`; exits 1 on any failure.
"""

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import yaml
from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

STARTUP_SECONDS = 30
DEADLINE_SECONDS = 30


class Checks:
    """Counts checks; a failed one is printed with what was seen, and the run goes on."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.lock = threading.Lock()

    def check(self, name, ok, seen=None, quiet=False):
        with self.lock:
            if ok:
                self.passed += 1
                if not quiet:
                    print(f"ok     {name}", flush=True)
            else:
                self.failed += 1
                print(f"FAILED {name}" + (f": {seen!r}" if seen is not None else ""), flush=True)
        return ok


checks = Checks()


# --- openapi-core over httpx -------------------------------------------------------------------

class CoreRequest:
    """An httpx.Request as openapi-core's Request protocol."""

    def __init__(self, request: httpx.Request):
        url = request.url
        self.host_url = f"{url.scheme}://{url.netloc.decode()}"
        self.path = url.path
        self.method = request.method.lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qsl(url.query.decode(), keep_blank_values=True)),
            header=Headers(list(request.headers.multi_items())),
            cookie=ImmutableMultiDict(),
        )
        self.body = request.content or None
        self.content_type = request.headers.get("content-type", "").lower()


class CoreResponse:
    """An httpx.Response (read) as openapi-core's Response protocol."""

    def __init__(self, response: httpx.Response):
        self.status_code = response.status_code
        self.headers = Headers(list(response.headers.multi_items()))
        self.content_type = response.headers.get("content-type", "").lower()
        self.data = response.content


class SpecValidator:
    """An httpx response hook: openapi-core validates each request and response against the spec."""

    def __init__(self, spec_path):
        # openapi-core reads application/json and text/plain itself, but not the problem+json suffix
        # type, nor YAML (/openapi.yaml).
        config = Config(extra_media_type_deserializers={
            "application/problem+json": lambda value, **_: json.loads(value),
            "application/yaml": lambda value, **_: yaml.safe_load(value),
            "text/yaml": lambda value, **_: value.decode("utf-8"),
        })
        self.spec = OpenAPI.from_file_path(str(spec_path), config=config)
        self.validated = 0
        self.refusing = False

    @contextmanager
    def refused_request(self):
        """Within it, a request is one the spec must refuse (and the server too); its response is checked as usual."""
        self.refusing = True
        try:
            yield
        finally:
            self.refusing = False

    def __call__(self, response: httpx.Response):
        response.read()
        request = CoreRequest(response.request)
        name = f"spec: {response.request.method} {response.request.url.raw_path.decode()} -> {response.status_code}"
        errors = []
        try:
            self.spec.validate_request(request)
            if self.refusing:
                errors.append("the spec accepts a request that the server must refuse")
        except Exception as error:  # openapi-core raises one exception naming every problem
            if not self.refusing:
                errors.append(self.describe(error))
        try:
            self.spec.validate_response(request, CoreResponse(response))
        except Exception as error:
            errors.append(self.describe(error))
        checks.check(name, not errors, "; ".join(errors) if errors else None, quiet=True)
        self.validated += 1

    @staticmethod
    def describe(error):
        causes = getattr(error, "schema_errors", None) or getattr(error.__cause__, "schema_errors", None) or []
        return f"{type(error).__name__}: {error}" + "".join(f"\n    {cause.message}" for cause in causes)


# --- alertd ------------------------------------------------------------------------------------

def start_alertd(binary, work, tokens):
    """alertd on a free loopback port with the given tokens: (process, base URL)."""
    env = dict(os.environ, ALERTD_TOKENS=",".join(f"{name}:{role}:{token}" for name, role, token in tokens))
    with open(work / "alertd.out", "w") as out, open(work / "alertd.log", "w") as log:
        process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0"], stdout=out, stderr=log, env=env)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        match = re.search(r"^alertd listening on (http://\S+)", (work / "alertd.out").read_text(), re.MULTILINE)
        if match:
            return process, match.group(1).rstrip("/")
        time.sleep(0.05)
    process.kill()
    sys.exit(f"generated-client: alertd did not start; see {work}/alertd.log")


def stop_alertd(process):
    process.send_signal(signal.SIGTERM)
    try:
        status = process.wait(timeout=DEADLINE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        status = "killed"
    checks.check("alertd exits 0 on SIGTERM", status == 0, status)


def eventually(condition):
    """Polls `condition` until it is true or DEADLINE_SECONDS pass; whether it became true."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


# --- the generated client ----------------------------------------------------------------------

def generate(venv_bin, spec_path, work):
    """Generates the client into WORK/alertd_client; checks that it printed no warning."""
    output = work / "alertd_client"
    env = dict(os.environ, PATH=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}")  # ruff, for its post-hooks
    run = subprocess.run(
        [str(Path(venv_bin) / "openapi-python-client"), "generate", "--path", str(spec_path), "--meta", "none",
         "--output-path", str(output), "--overwrite", "--fail-on-warning"],
        capture_output=True, text=True, env=env, check=False)
    printed = run.stdout + run.stderr
    warned = re.search(r"warning|error", printed, re.IGNORECASE)
    checks.check("openapi-python-client generates the client without warnings",
                 run.returncode == 0 and not warned, printed.strip())
    if run.returncode != 0:
        sys.exit("generated-client: no client was generated")
    sys.path.insert(0, str(work))


def lifecycle(base_url, tokens, validate):
    from alertd_client import AuthenticatedClient, Client
    from alertd_client.api.alerts import create_alert, get_alert, head_alert
    from alertd_client.api.events import get_events
    from alertd_client.api.responses import answer_alert, get_response
    from alertd_client.api.service import get_metrics, get_open_api, health
    from alertd_client.models import (
        AlertCreate,
        AlertState,
        AlreadyResolvedProblem,
        AnswerInput,
        ButtonInput,
        ButtonStyle,
        CreateRejectedProblem,
        EventType,
        FieldInput,
        ForbiddenProblem,
        Health,
        KeyboardName,
        NotFoundProblem,
        ProblemType,
        Result,
        UnauthorizedProblem,
    )

    options = {"base_url": base_url, "timeout": httpx.Timeout(60), "httpx_args": {"event_hooks": {"response": [validate]}}}
    anonymous = Client(**options)
    producer, responder, admin = (AuthenticatedClient(token=token, **options) for _, _, token in tokens)

    # The service: health, the document (application/yaml, or text/yaml when asked), a 401 without a token.
    up = health.sync_detailed(client=anonymous)
    checks.check("health answers a typed Health", isinstance(up.parsed, Health) and up.parsed.status == "ok", up)
    document = get_open_api.sync_detailed(client=anonymous)
    checks.check("/openapi.yaml is application/yaml, read as text",
                 document.headers.get("content-type", "").startswith("application/yaml")
                 and isinstance(document.parsed, str) and document.parsed.startswith("openapi: 3.1"),
                 document.headers.get("content-type"))
    as_text = get_open_api.sync_detailed(client=anonymous.with_headers({"Accept": "text/yaml"}))
    checks.check("/openapi.yaml is text/yaml when Accept asks for it",
                 as_text.headers.get("content-type", "").startswith("text/yaml") and as_text.parsed == document.parsed,
                 as_text.headers.get("content-type"))
    refused = get_metrics.sync_detailed(client=anonymous)
    checks.check("a request without a token is a typed 401",
                 refused.status_code == 401 and isinstance(refused.parsed, UnauthorizedProblem)
                 and refused.parsed.type_ == ProblemType.URNALERTDPROBLEMUNAUTHORIZED, refused.parsed)

    # The login alert, from the typed models: Cancel/OK, a username and a secure password field.
    login = AlertCreate(
        title="Login",
        message="Enter your credentials",
        buttons=[ButtonInput(title="Cancel", style=ButtonStyle.CANCEL), ButtonInput(title="OK")],
        fields=[FieldInput(placeholder="Username", keyboard=KeyboardName.ASCIICAPABLE),
                FieldInput(placeholder="Password", secure=True)],
    )
    created = create_alert.sync_detailed(client=producer, body=login)
    alert = created.parsed
    checks.check("the producer creates the login alert (201, typed Alert)",
                 created.status_code == 201 and alert.state == AlertState.PENDING
                 and [(b.title, b.style) for b in alert.buttons] == [("Cancel", "cancel"), ("OK", "default")]
                 and [(f.placeholder, f.secure) for f in alert.fields] == [("Username", False), ("Password", True)]
                 and alert.owner == "producer", created.parsed)
    with validate.refused_request():
        empty = create_alert.sync_detailed(client=producer, body=AlertCreate(buttons=["OK"]))
    checks.check("an alert without title or message is a typed 422 naming the member",
                 empty.status_code == 422 and isinstance(empty.parsed, CreateRejectedProblem)
                 and [getattr(error, "pointer", None) for error in empty.parsed.errors] == ["/title"], empty.parsed)
    head = head_alert.sync_detailed(alert.id, client=producer)
    checks.check("HEAD on the alert: 200, no body", head.status_code == 200 and head.content == b"", head)

    # A long-poll on the response, held until the answer comes.
    long_poll = {}

    def wait_for_response():
        long_poll["response"] = get_response.sync_detailed(alert.id, client=producer, wait=60)

    waiter = threading.Thread(target=wait_for_response)
    waiter.start()

    def waiting():
        metrics = get_metrics.sync_detailed(client=admin).parsed or ""
        return re.search(r"^alertd_waiters [1-9]", metrics, re.MULTILINE) is not None
    checks.check("the long-poll is waiting (alertd_waiters, read through the client)", eventually(waiting))

    # The responder answers with values; the long-poll wakes with the same Result.
    answered = answer_alert.sync_detailed(alert.id, client=responder,
                                          body=AnswerInput(button="OK", values=["alice", "s3cret"]))
    result = answered.parsed
    checks.check("the responder's answer wins (200, typed Result with the values)",
                 answered.status_code == 200 and isinstance(result, Result) and result.button_index == 1
                 and result.ok and result.values == ["alice", "s3cret"] and result.resolution == "answered", result)
    waiter.join(DEADLINE_SECONDS)
    woken = long_poll.get("response")
    checks.check("the long-poll answers the same Result",
                 woken is not None and woken.status_code == 200 and isinstance(woken.parsed, Result)
                 and woken.parsed.to_dict() == result.to_dict(), woken)

    # Too late: 409 with the Result that won (the responder sees secure values as null there).
    again = answer_alert.sync_detailed(alert.id, client=responder, body=AnswerInput(button_index=0))
    problem = again.parsed
    checks.check("a second answer is a typed 409 carrying the winning Result",
                 again.status_code == 409 and isinstance(problem, AlreadyResolvedProblem)
                 and problem.type_ == ProblemType.URNALERTDPROBLEMALREADY_RESOLVED
                 and isinstance(problem.result, Result) and problem.result.button_title == "OK"
                 and problem.result.values == ["alice", None] and problem.result.resolved_at == result.resolved_at,
                 problem)
    forbidden = answer_alert.sync_detailed(alert.id, client=producer, body=AnswerInput(button="Cancel"))
    checks.check("the producer may not answer: a typed 403",
                 forbidden.status_code == 403 and isinstance(forbidden.parsed, ForbiddenProblem), forbidden.parsed)
    missing = get_alert.sync_detailed("q3l8Vd0bXyZ7kP2mNw4sTA", client=admin)
    checks.check("an unknown id is a typed 404",
                 missing.status_code == 404 and isinstance(missing.parsed, NotFoundProblem), missing.parsed)

    # The event feed, in its JSON (long-poll) form: created then answered, consecutive ids.
    feed = get_events.sync_detailed(client=producer, since=0, wait=5)
    events = feed.parsed if isinstance(feed.parsed, list) else []
    mine = [event for event in events if event.alert.id == alert.id]
    checks.check("the event feed (JSON form) holds created then answered, with consecutive ids",
                 feed.status_code == 200 and [event.type_ for event in mine] == [EventType.CREATED, EventType.ANSWERED]
                 and [event.id for event in events] == list(range(1, len(events) + 1))
                 and int(feed.headers["x-alertd-index"]) == events[-1].id, feed.parsed)
    checks.check("secure values are null in events",
                 len(mine) == 2 and mine[1].alert.result.values == ["alice", None]
                 and mine[1].alert.fields[1].text is None, mine)


def main():
    binary, spec_path, work = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
    generate(Path(sys.executable).parent, spec_path, work)
    tokens = [(name, name, secrets.token_urlsafe(24)) for name in ("producer", "responder", "admin")]
    process, base_url = start_alertd(binary, work, tokens)
    validator = SpecValidator(spec_path)
    try:
        lifecycle(base_url, tokens, validator)
    except Exception as error:  # a crash in the run is a failure, reported with the rest
        checks.check("the lifecycle runs to its end", False, f"{type(error).__name__}: {error}")
    finally:
        stop_alertd(process)
    print(f"openapi-core checked {validator.validated} requests and their responses against the spec", flush=True)
    print(f"generated-client: {checks.passed} passed, {checks.failed} failed", flush=True)
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
