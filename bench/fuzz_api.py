"""Schemathesis over the bridge API and the RCM sandbox: no 5xx but injected faults, no undocumented status.

    .venv/bin/python bench/fuzz_api.py                  # 300 s, writes bench/results/fuzz_api.json
    .venv/bin/python bench/fuzz_api.py --duration 30 --out /tmp/fuzz.json

Both apps run on real uvicorn servers in this process: the sandbox (with 2% of its tool requests
answered by an injected 503, as production faults) and a bridge over it (live backend, the
reference policy, a SQLite outbox, vault and archive; the outbox is projected into the archive
after every round, as the relay and the stream worker do). Before fuzzing, the bridge works a few
seed claims, so there are episodes to read, label and report outcomes for.

Every round asks each operation of both OpenAPI documents for a few schema-shaped requests
(positive), a few that break the schema (negative), a few schema-shaped ones whose ids are
ones that exist (`known`: seed claims, payers, documents, bulletins; the bridge's episodes and PHI
tokens; valid work items), and, for operations with a JSON body, a few whose body has one token
replaced by what Python's `json` reads but no schema describes (`hostile`: NaN, Infinity, lone
surrogate escapes), with a valid token of a random role, a wrong token or none, until the time is up.

A response is a failure when it is a 5xx that is not an injected fault (the sandbox's injected
errors say so in their message), when its status is not documented for its operation, or when the
connection breaks. Failures are grouped by operation and status, with one example request each.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, seed_world
from adapters.rcm.live import LiveBackend
from adapters.rcm.sandbox import SandboxConfig, serve_in_thread
from adapters.rcm.sandbox.config import FaultConfig
from adapters.rcm.seed import SEED_CASES
from adapters.serving import serve_in_thread as serve_app
from bridge.api.app import create_app
from bridge.api.auth import Role, TokenTable
from bridge.capture import CaptureConfig, CaptureService
from bridge.runtime import RunnerConfig
from bridge.store import ArchiveRecord, SqlEventArchive
from envs.rcm.tasks import work_item_for
from loopline.bridge_app import rcm_services
from loopline.reference_policy import ReferencePolicy
from schemas.codec import from_structured

OUT = Path(__file__).parent / "results" / "fuzz_api.json"
INJECTED_5XX_RATE = 0.02
WARM_UP_EPISODES = 4
PHI_TOKEN = re.compile(r"phi_[0-9a-f]{8,}")
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


def _injected(response: requests.Response) -> bool:
    return "injected fault" in response.text


def _keep_faults(
    url: str, token: str, faults: FaultConfig
) -> Callable[[schemathesis.Case, requests.Response], None]:
    """After a fuzzed `PUT /admin/faults` took effect, put the run's fault configuration back: a
    fuzzed one may stall every request for minutes, which tests the clock, not the API."""

    def restore(case: schemathesis.Case, response: requests.Response) -> None:
        if case.operation.path == "/admin/faults" and case.method == "PUT" and response.status_code == 200:
            headers = {"Authorization": f"Bearer {token}"}
            put = requests.put(
                f"{url}/admin/faults", json=faults.model_dump(mode="json"), headers=headers, timeout=10
            )
            put.raise_for_status()

    return restore


class Projector:
    """Feeds the bridge's outbox into its archive, as the relay and the stream worker do."""

    def __init__(self, capture: CaptureService, archive: SqlEventArchive) -> None:
        self.capture, self.archive, self.seen = capture, archive, 0

    def __call__(self) -> None:
        rows = [row for row in self.capture.outbox.rows() if row.pos > self.seen]
        if rows:
            self.archive.append([ArchiveRecord.of(from_structured(row.structured())) for row in rows])
            self.seen = rows[-1].pos

    def phi_tokens(self) -> list[str]:
        found = {m for row in self.capture.outbox.rows() for m in PHI_TOKEN.findall(row.doc.decode())}
        return sorted(found)


def _warm_up(bridge_url: str, agent_token: str, work_items: list[dict[str, Any]]) -> list[str]:
    """The bridge works a few seed claims (its episode ids); what fuzzing then reads and labels."""
    ids = []
    for item in work_items[:WARM_UP_EPISODES]:
        answer = requests.post(
            f"{bridge_url}/v1/episodes",
            json={"work_item": item},
            headers={"Authorization": f"Bearer {agent_token}"},
            timeout=120,
        )
        answer.raise_for_status()
        ids.append(str(answer.json()["episode_id"]))
    return ids


@dataclass
class Served:
    """The two apps under test, and what to do between rounds."""

    targets: list[Target]
    between_rounds: Callable[[], None]


@contextmanager
def serve_both(workdir: Path) -> Iterator[Served]:
    """The sandbox (faults on) and a bridge over it, each on a free port, with tokens for every role."""
    admin_token = secrets.token_urlsafe(24)
    faults = FaultConfig(seed=7, error_5xx_rate=INJECTED_5XX_RATE)
    bridge_tokens = {role.value: secrets.token_urlsafe(16) for role in Role}
    world = seed_world()
    work_items = [work_item_for(world, claim).model_dump(mode="json") for claim in SEED_CASES]
    with ExitStack() as stack:
        sandbox_url = stack.enter_context(
            serve_in_thread(SandboxConfig(faults=faults, admin_token=admin_token))
        )
        capture = CaptureService.open(
            CaptureConfig(
                tenant="fuzz",
                source="loopline://bench/fuzz",
                outbox_path=workdir / "outbox.db",
                vault_url=f"sqlite:///{workdir / 'vault.db'}",
                environment="test",
            )
        )
        stack.callback(capture.close)
        archive = SqlEventArchive(f"sqlite:///{workdir / 'archive.db'}")
        archive.create_schema()
        live = LiveBackend(sandbox_url, timeout_s=10)
        stack.callback(live.close)
        services = rcm_services(
            capture,
            Toolbox(RCM_TOOLS, live),
            ReferencePolicy(),
            RunnerConfig(max_steps=8, max_seconds=30, escalate_tool="escalate_to_human"),
            archive,
        )
        tokens = TokenTable.from_tokens({token: Role(role) for role, token in bridge_tokens.items()})
        bridge_url = stack.enter_context(serve_app(create_app(services, tokens), name="bridge-api"))
        projector = Projector(capture, archive)
        episodes = _warm_up(bridge_url, bridge_tokens[Role.AGENT.value], work_items)
        projector()
        wrong: dict[str, str | None] = {"none": None, "wrong": "not-a-token"}
        bridge_known = {
            "episode_id": episodes,
            "subject": episodes,
            "token": projector.phi_tokens() or ["phi_0"],
            "work_item": work_items,
        }
        sandbox_known: dict[str, list[Any]] = {
            "claim_id": sorted(world.claims),
            "payer_id": sorted(world.payers),
            "document_id": sorted(world.documents),
            "bulletin_id": sorted(world.bulletins),
            "patient_id": sorted(world.patients),
        }
        yield Served(
            targets=[
                Target("bridge", bridge_url, {**bridge_tokens, **wrong}, known=bridge_known),
                Target(
                    "sandbox",
                    sandbox_url,
                    {"admin": admin_token, **wrong},
                    known=sandbox_known,
                    injected=_injected,
                    after=_keep_faults(sandbox_url, admin_token, faults),
                ),
            ],
            between_rounds=projector,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of fuzzing in all (300)")
    parser.add_argument("--examples", type=int, default=8, help="requests per operation, mode and round (8)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the operation order")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the JSON report goes ({OUT})")
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.examples < 1:
        parser.error("--duration must be positive and --examples at least 1")
    with tempfile.TemporaryDirectory(prefix="loopline-fuzz-") as folder, serve_both(Path(folder)) as served:
        result = fuzz(served.targets, args.duration, args.examples, args.seed, served.between_rounds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for name, app in result["apps"].items():
        print(
            f"{name}: {app['operations']} operations, {app['requests']} requests, "
            f"5xx {app['server_errors']} (+{app['injected_5xx']} injected), "
            f"undocumented {app['undocumented_status']}, transport errors {app['transport_errors']}"
        )
        for key, entry in app["failures"].items():
            print(f"  {entry['kind']} x{entry['count']}: {key}\n    {entry['example'][:400]}")
    print(f"{result['requests']} requests in {result['duration_s']} s; report in {args.out}")
    failed = result["server_errors"] + result["undocumented_status"] + result["transport_errors"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
