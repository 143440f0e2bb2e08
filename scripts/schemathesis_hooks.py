"""Schemathesis hooks for scripts/schemathesis.sh: keep the long-polls short.

openapi.yaml lets `wait` be 0 to 300 s, and the run generates such values (the coverage phase
tries the maximum on purpose). A pending alert, a blocking list query or an event long-poll
then holds the request for that long, and a bounded run would take hours. So, just before each
request is sent, a valid `wait` above WAIT_CAP becomes WAIT_CAP: the request still waits
(suspended and resumed by the server), only briefly. Values the spec forbids (-1, 301, 1.5,
"x") are sent as generated, so the server's `400` for them is still checked.

`GET /v1/events` without `wait` is a Server-Sent Events stream that never ends by itself;
schemathesis reads such a stream until its request timeout and checks what arrived. That
timeout is lowered to STREAM_SECONDS for the stream only, so long-polls keep the normal one.
"""

import schemathesis

WAIT_CAP = 1
STREAM_SECONDS = 1.0


def _whole_seconds(value):
    """`value` as an int when it is a valid `wait` (a whole number 0 to 300), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    else:
        return None
    return number if 0 <= number <= 300 else None


@schemathesis.hook
def before_call(context, case, kwargs):
    query = case.query if isinstance(case.query, dict) else None
    wait = _whole_seconds(query.get("wait")) if query else None
    if wait is not None and wait > WAIT_CAP:
        query["wait"] = WAIT_CAP
    if case.operation.path == "/v1/events" and (query is None or "wait" not in query):
        kwargs["timeout"] = STREAM_SECONDS
