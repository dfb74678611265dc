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
import re
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import requests
import schemathesis
from fuzz_engine import Target, fuzz

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
from bridge.store import ArchiveRecord, SqlEventArchive
from engine import EpisodeConfig
from envs.rcm.tasks import work_item_for
from envs.rollout import reference_policy
from loopline.bridge.app import rcm_services
from schemas.codec import from_structured

OUT = Path(__file__).parent / "results" / "fuzz_api.json"
INJECTED_5XX_RATE = 0.02
WARM_UP_EPISODES = 4
PHI_TOKEN = re.compile(r"phi_[0-9a-f]{8,}")


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
            reference_policy("rcm"),
            EpisodeConfig(max_steps=8, max_seconds=30),
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
