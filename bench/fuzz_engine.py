"""The fuzzing engine of `bench/fuzz_api.py`: schemathesis cases against running apps, for a duration.

Each round asks every operation of every target for a few requests in each mode (`positive`,
`negative`, `known`, `hostile`; `bench/fuzz_api.py` says what they are) with a token drawn from the
target's callers, and records every answer: its status, and a failure when it is a 5xx that is not
an injected fault, a status the operation does not document, or a broken connection.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MODES: tuple[str, ...] = ("positive", "negative", "known", "hostile")
HOSTILE = ("NaN", "Infinity", '"\\ud800"', '"x\\udfffy"')
"""What `hostile` puts in a JSON body: what Python's `json` reads but no schema can describe."""
JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')


@dataclass(frozen=True)
class Target:
    """One app under test: its base URL, the tokens to send (None: no header) and its fault marker."""

    name: str
    url: str
    tokens: dict[str, str | None]
    known: dict[str, list[Any]] = field(default_factory=dict)
    """Parameter or body field name -> values that exist, for the `known` mode."""
    injected: Callable[[requests.Response], bool] = lambda _: False
    after: Callable[[schemathesis.Case, requests.Response], None] = lambda _case, _response: None


@dataclass
class Report:
    """What one app answered."""

    operations: int = 0
    requests: int = 0
    by_status: Counter[int] = field(default_factory=Counter)
    by_caller: Counter[str] = field(default_factory=Counter)
    injected_5xx: int = 0
    """5xx answers that are faults the sandbox was told to inject."""
    failures: dict[str, dict[str, Any]] = field(default_factory=dict)
    admitted: dict[str, set[str]] = field(default_factory=dict)
    """Operation -> callers it did not refuse (401/403): drawn more often, to get past auth."""

    def fail(self, key: str, kind: str, example: str) -> None:
        entry = self.failures.setdefault(key, {"kind": kind, "count": 0, "example": example})
        entry["count"] += 1

    def as_json(self) -> dict[str, Any]:
        kinds = Counter[str]()
        for entry in self.failures.values():
            kinds[entry["kind"]] += entry["count"]
        return {
            "operations": self.operations,
            "requests": self.requests,
            "by_status": {str(code): n for code, n in sorted(self.by_status.items())},
            "by_caller": dict(sorted(self.by_caller.items())),
            "injected_5xx": self.injected_5xx,
            "server_errors": kinds["server_error"],
            "undocumented_status": kinds["undocumented_status"],
            "transport_errors": kinds["transport_error"],
            "failures": dict(sorted(self.failures.items())),
        }


def documented(codes: tuple[str, ...], status: int) -> bool:
    """Whether `status` is among an operation's documented responses (`default` and `4XX` count)."""
    text = str(status)
    return "default" in codes or any(
        code == text or (code[1:].upper() == "XX" and code[0] == text[0]) for code in codes
    )


def _example(case: schemathesis.Case, response: requests.Response | None) -> str:
    body = "" if response is None else response.text[:300].replace("\n", " ")
    return f"{case.method} {case.formatted_path} query={case.query} body={str(case.body)[:200]} -> {body}"


def hostile_body(body: Any, pick: int, where: int) -> bytes:
    """`body` as JSON with one token (a key or a value) replaced by `HOSTILE[pick]`."""
    text = json.dumps(body)
    tokens = list(JSON_TOKEN.finditer(text)) if isinstance(body, dict | list) else []
    if not tokens:
        return f'{{"x": {HOSTILE[pick % len(HOSTILE)]}}}'.encode()
    token = tokens[where % len(tokens)]
    return (text[: token.start()] + HOSTILE[pick % len(HOSTILE)] + text[token.end() :]).encode()


def _call(
    target: Target, case: schemathesis.Case, headers: dict[str, str], raw: bytes | None
) -> requests.Response:
    if raw is None:
        return case.call(base_url=target.url, headers=headers, timeout=60)
    return requests.request(
        case.method,
        target.url + case.formatted_path,
        params=case.query,
        data=raw,
        headers={**headers, "content-type": "application/json"},
        timeout=60,
    )


def _send(target: Target, report: Report, case: schemathesis.Case, caller: str, raw: bytes | None) -> None:
    token = target.tokens[caller]
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    label = f"{case.method} {case.operation.path}"
    report.requests += 1
    report.by_caller[caller] += 1
    try:
        response = _call(target, case, headers, raw)
    except requests.RequestException as exc:
        report.fail(f"{label} transport", "transport_error", f"{_example(case, None)} {exc!r}")
        return
    status = response.status_code
    report.by_status[status] += 1
    target.after(case, response)
    if status not in (401, 403):
        report.admitted.setdefault(label, set()).add(caller)
    if target.injected(response):
        # A fault the sandbox was configured to inject (the fuzzer may set any status through
        # /admin/faults): the server doing what it was told, so neither a 5xx nor undocumented.
        report.injected_5xx += status >= 500
        return
    if status >= 500:
        report.fail(f"{label} {status}", "server_error", _example(case, response))
    if not documented(case.operation.responses.status_codes, status):
        report.fail(f"{label} {status} undocumented", "undocumented_status", _example(case, response))


def _fill(case: schemathesis.Case, choice: dict[str, Any]) -> schemathesis.Case:
    """Put known values into the path parameters, query and body fields of `case` that have them."""
    for name, value in choice.items():
        if case.path_parameters is not None and name in case.path_parameters:
            case.path_parameters[name] = value
        elif case.query is not None and name in case.query:
            case.query[name] = value
        elif isinstance(case.body, dict) and name in case.body:
            case.body[name] = value
    return case


def _strategy(target: Target, operation: Any, mode: str) -> Any:
    """(case, raw body or None) pairs: a raw body replaces the case's own (`hostile`)."""
    if mode == "negative":
        negative = operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE)
        return st.tuples(negative, st.none())
    base = operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE)
    if mode == "hostile":
        mutation = st.tuples(base, st.integers(0, len(HOSTILE) - 1), st.integers(0, 10_000))
        return mutation.map(lambda m: (m[0], hostile_body(m[0].body, m[1], m[2])))
    if mode == "positive" or not target.known:
        return st.tuples(base, st.none())
    choice = st.fixed_dictionaries({name: st.sampled_from(values) for name, values in target.known.items()})
    return st.tuples(base, choice).map(lambda pair: (_fill(*pair), None))


def _round(target: Target, report: Report, operation: Any, mode: str, examples: int, deadline: float) -> None:
    # Every caller stays possible (refusals are tested too); those the operation admits weigh 3x.
    admitted = sorted(report.admitted.get(f"{operation.method.upper()} {operation.path}", ()))
    callers = sorted(target.tokens) + admitted * 3

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[hypothesis.Phase.generate],
        verbosity=hypothesis.Verbosity.quiet,
    )
    @given(request=_strategy(target, operation, mode), caller=st.sampled_from(callers))
    def one(request: tuple[schemathesis.Case, bytes | None], caller: str) -> None:
        if time.monotonic() < deadline:
            _send(target, report, request[0], caller, request[1])

    one()


def _try_round(
    target: Target, report: Report, operation: Any, mode: str, examples: int, deadline: float
) -> bool:
    """One round; False when the mode cannot shape a request for the operation (negative data for an
    operation without parameters), so later rounds skip it."""
    try:
        _round(target, report, operation, mode, examples, deadline)
    except hypothesis.errors.Unsatisfiable:
        return False
    return True


def fuzz(
    targets: list[Target],
    duration_s: float,
    examples: int,
    seed: int | None = None,
    between_rounds: Callable[[], None] = lambda: None,
) -> dict[str, Any]:
    """Fuzz every operation of every target, round after round, for `duration_s`; the JSON report."""
    rng = random.Random(seed)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    started = time.monotonic()
    deadline = started + duration_s
    reports = {target.name: Report() for target in targets}
    plan: list[tuple[Target, Any, Any]] = []
    for target in targets:
        schema = schemathesis.openapi.from_url(f"{target.url}/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        reports[target.name].operations = len(operations)
        plan += [
            (target, operation, mode)
            for operation in operations
            for mode in MODES
            if mode != "hostile" or operation.body  # only operations that take a JSON body
        ]
    rounds = 0
    while plan and time.monotonic() < deadline:
        rounds += 1
        rng.shuffle(plan)
        for entry in list(plan):
            if time.monotonic() >= deadline:
                break
            target, operation, mode = entry
            if not _try_round(target, reports[target.name], operation, mode, examples, deadline):
                plan.remove(entry)
        between_rounds()
    elapsed = time.monotonic() - started
    apps = {name: report.as_json() for name, report in reports.items()}
    return {
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(elapsed, 1),
        "rounds": rounds,
        "examples_per_operation_and_mode": examples,
        "schemathesis": schemathesis.SCHEMATHESIS_VERSION,
        "hypothesis": hypothesis.__version__,
        "requests": sum(app["requests"] for app in apps.values()),
        "server_errors": sum(app["server_errors"] for app in apps.values()),
        "undocumented_status": sum(app["undocumented_status"] for app in apps.values()),
        "transport_errors": sum(app["transport_errors"] for app in apps.values()),
        "injected_5xx": sum(app["injected_5xx"] for app in apps.values()),
        "apps": apps,
    }
