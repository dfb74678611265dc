"""`loopline demo`: the bridge end to end on the embedded stack.

1. the embedded stack (Tansu on SeaweedFS, Temporal) is started, or the running one reused;
2. the RCM sandbox serves the live system, with production faults injected, and a payer changes a
   rule there (`envs.rcm.rule_change`: Bluestone shortens its retro-authorization window);
3. a streams worker process projects the event topic into the SQL archive and detects edge cases;
4. the bridge API runs the reference specialist on every denied claim of the work queue, captures
   every event (PHI tokenised) into its outbox and relays it to Kafka;
5. the payer's later outcomes arrive through the webhook; some contradict the episode;
6. the demo waits until the archive holds every event, then reports episodes, tool error rates,
   edge cases, one episode's timeline and the audit `loopline audit verify` runs (every check,
   with the run's keys and checkpoints);
7. the verifier that will score training is checked: a verifier card on a small sample of rcm-base
   and rcm-edge plus the hand-written expert set (validation, mutants, exploits, expert
   agreement, and business outcomes from this run's archive);
8. promotion: every edge case of the run starts its Temporal workflow; each draft is rebuilt from
   the recorded episode, a simulated reviewer (labelled so) approves the suggestions that match the
   sandbox's ground truth, the gates validate them and a new `rcm-promoted` (or `credit-promoted`)
   version is published with `task.promoted` on the demo's topic (`--review`: a person decides in
   the review page);
9. improvement (`loopline.demo.improvement`, rcm): an improvement cycle on Temporal trains a LoRA
   adapter on fresh instances of what stage 8 promoted (with replay), judged by the product's
   default gate, and a second production day served through `loopline serve-policy` routes half
   of its fresh cases to the adapter as a canary; the sequential test promotes or rolls it back
   (`--no-improvement` skips the stage).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from adapters.serving import serve_in_thread
from bridge.store import SqlEpisodeReader, SqlEventArchive
from envs.demo import RuleChange
from envs.domain import DOMAINS
from envs.rollout import reference_policy
from loopline.bridge.app import build_bridge
from loopline.bridge.settings import BridgeSettings
from loopline.card.build import build_card, write_json
from loopline.card.render import render
from loopline.demo import html_report, report
from loopline.demo.day_two import Production
from loopline.demo.domains import DemoDomain, demo_domain
from loopline.demo.worker import streams_worker
from loopline.kafka.settings import KafkaSettings
from loopline.kafka.topics import ensure_topics
from loopline.stack import down, kafka_settings, up
from loopline.stack.settings import StackSettings
from loopline.streams.audit import run_audit, topic_sources
from loopline.streams.event_keys import (
    checkpoint_key_file,
    checkpoint_public_file,
    ensure_keys,
    public_file,
    role_file,
)
from training.release.sequential import SprtSettings

if TYPE_CHECKING:
    from loopline.demo.promotion import Truth

AGENT = {"Authorization": "Bearer dev-agent-token"}
INTEGRATION = {"Authorization": "Bearer dev-integration-token"}
CARD_WORKERS = min(2, os.cpu_count() or 1)
"""Processes for the card's mutants, exploits and blind desks (each task's work is independent)."""
"""The billing system's token: only the integration role may report outcomes."""


@dataclass
class DemoResult:
    workdir: Path
    topic: str = ""
    db_url: str = ""
    episodes: list[dict[str, Any]] = field(default_factory=list)
    outcomes: int = 0
    events: int = 0
    archived: int = 0
    edge_cases: int = 0
    audit_ok: bool = False
    verifier_bars_met: bool = False
    promoted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    improvement: str = ""
    report: Path | None = None
    """The HTML report (`report/index.html` under the work folder)."""
    page: html_report.ReportInputs | None = None
    """What the report is made of, filled stage by stage."""
    improvement_problems: list[str] = field(default_factory=list)
    """Why the improvement stage did not show what it claims (empty when it did or did not run)."""
    started: float = field(default_factory=time.monotonic)


def _progress(console: Console) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def run_demo(
    console: Console,
    *,
    state_dir: Path,
    keep_stack: bool,
    workers: int = 4,
    review: bool = False,
    domain: str = "rcm",
    improvement: bool = True,
    corrupt: bool = False,
) -> DemoResult:
    """Start (or reuse) the embedded stack, run the pipeline on it, stop what was started."""
    scenario = DOMAINS.get(domain).demo
    if scenario is None:
        raise ValueError(f"domain {domain!r} has no demo")
    stack_settings = StackSettings(state_dir=state_dir)
    with console.status("starting the embedded stack (SeaweedFS, Tansu, Temporal)…"):
        stack = up(stack_settings)
    state = "reused" if stack.already_running else f"ready in {stack.elapsed_s:.1f} s"
    console.print(f"embedded stack {state}: Kafka {stack.state.endpoints.bootstrap_servers}")
    try:
        return run_pipeline(
            console,
            kafka_settings(stack.state),
            state_dir / "demo",
            workers=workers,
            temporal_address=stack.state.endpoints.temporal_address,
            review=review,
            rule_change=scenario.rule_change,
            domain=domain,
            improvement_state=state_dir if improvement and scenario.improvement else None,
            corrupt=corrupt,
        )
    finally:
        if not keep_stack and not stack.already_running:
            with console.status("stopping the stack…"):
                down(stack_settings)


KEPT_ACROSS_RUNS = ("promotion",)
"""What a new demo run keeps of the last one: the promotion stage's drafts and published task sets,
which the stack's Temporal remembers (one workflow per edge case, ever), so a second run on the same
stack shows what the first promoted instead of deleting it."""


def fresh_workdir(workdir: Path) -> None:
    """Empty `workdir` for a new run, keeping `KEPT_ACROSS_RUNS`."""
    workdir.mkdir(parents=True, exist_ok=True)
    for entry in workdir.iterdir():
        if entry.name in KEPT_ACROSS_RUNS:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def run_pipeline(
    console: Console,
    kafka: KafkaSettings,
    workdir: Path,
    *,
    workers: int = 4,
    temporal_address: str | None = None,
    review: bool = False,
    rule_change: RuleChange | None = None,
    domain: str = "rcm",
    improvement_state: Path | None = None,
    corrupt: bool = False,
) -> DemoResult:
    """The whole production path against the broker `kafka` names; files go under `workdir`.
    `rule_change` is made in the sandbox before the queue is worked (the payer's new rule); `domain`
    picks the work queue and the live system (`loopline.demo.domains`)."""
    started = time.monotonic()
    result = DemoResult(workdir=workdir)
    fresh_workdir(workdir)
    result.topic = f"loopline.demo{time.strftime('%Y%m%d%H%M%S')}{os.getpid()}.events.v1"
    result.db_url = db_url = f"sqlite:///{workdir / 'archive.db'}"
    vocabulary = workdir / "training-vocabulary.json"
    parts = demo_domain(domain, workdir)
    vocabulary.write_text(json.dumps(parts.scenario.vocabulary()))
    items = parts.items
    dlq = result.topic.replace(".events.", ".dlq.")
    anchors = result.topic.replace(".events.", ".checkpoints.")  # this run's checkpoints, off the host
    ensure_topics(kafka.client_config("admin"), [result.topic, dlq, anchors], partitions=4)
    ensure_keys(workdir / "keys")  # each producer's own signing key, and the verifiers' public file
    with (
        serve_in_thread(parts.app, name=f"{domain}-sandbox") as live_url,
        streams_worker(workdir, kafka, db_url, result.topic, vocabulary),
    ):
        console.print(
            f"live system ({domain} sandbox, faults injected) at {live_url}; streams worker → {db_url}"
        )
        if rule_change is not None:
            _change_rule(console, live_url, parts.admin_token, rule_change)
        settings = BridgeSettings(
            state_dir=workdir / "bridge",
            live_url=live_url,
            db_url=db_url,
            events_topic=result.topic,
            kafka=kafka,
            environment="dev",
            max_steps=40,
            live_timeout_s=1.0,
            domain=domain,
            event_keys_file=role_file("bridge", workdir / "keys"),
            checkpoint_key_file=checkpoint_key_file("bridge", workdir / "keys"),
            checkpoint_dir=workdir / "checkpoints",
            checkpoint_topic=anchors,
        )
        bridge = build_bridge(settings, policy=reference_policy(domain))
        try:
            with serve_in_thread(bridge.app(), name="bridge-api") as api:
                console.print(f"bridge API at {api} (OpenAPI at {api}/docs)")
                _run_episodes(console, api, items, result, workers, parts.scenario.queue_label)
                _wait_for_archive(console, bridge, db_url, result)
                _send_outcomes(console, api, parts, result)  # reads what each episode did
                _wait_for_archive(console, bridge, db_url, result)
        finally:
            bridge.close()
    archive = SqlEventArchive(db_url)
    reader = SqlEpisodeReader(archive.engine)
    result.edge_cases = len(reader.list_edge_cases(limit=1000))
    keys = workdir / "keys"
    checkpoint_topic, event_topic = topic_sources(kafka, result.topic, dlq, anchors)
    audit = run_audit(  # what `loopline audit verify` with the run's keys, checkpoints and topics runs
        archive,
        checkpoint_dirs=[workdir / "checkpoints"],
        checkpoint_keys=checkpoint_public_file(keys),
        event_keys=public_file(keys),
        anchors=checkpoint_topic,
        events=event_topic,
    )
    result.audit_ok = audit.ok
    result.seconds = time.monotonic() - started
    report.print_report(console, reader, result.episodes, audit, result)
    result.page = html_report.collect(
        reader,
        result.episodes,
        domain=domain,
        seconds=result.seconds,
        events=result.events,
        archived=result.archived,
        outcomes=result.outcomes,
        audit=audit,
        source=settings.source,
    )
    (workdir / "report.json").write_text(json.dumps(report.as_json(reader, result), indent=2, default=str))
    console.print(
        f"report: {workdir / 'report.json'}; inspect an episode: `loopline inspect ID --db-url {db_url}`; "
        f"the audit again: `LOOPLINE_EVENTS_TOPIC={result.topic} LOOPLINE_EVENT_KEYS_FILE={public_file(keys)} loopline audit verify --db-url {db_url} "
        f"--checkpoints {workdir / 'checkpoints'}`"
    )
    _verifier_card(console, db_url, workdir, result, parts)
    if temporal_address is not None:
        truth = parts.world if rule_change is None else rule_change.apply(parts.world)
        _promotion(console, kafka, temporal_address, workdir, result, truth, domain=parts.name, review=review)
        if improvement_state is not None:
            production = Production(
                kafka=kafka,
                topic=result.topic,
                db_url=db_url,
                keys=workdir / "keys",
                checkpoints=workdir / "checkpoints",
                checkpoint_topic=anchors,
                streams_worker=lambda: streams_worker(
                    workdir, kafka, db_url, result.topic, vocabulary, log_name="streams-worker-day-two"
                ),
            )
            _improvement(
                console, temporal_address, workdir, improvement_state, result, production, corrupt=corrupt
            )
    result.page.seconds = time.monotonic() - result.started
    result.report = html_report.write(result.page, workdir / "report")
    return result


def _improvement(
    console: Console,
    temporal_address: str,
    workdir: Path,
    state: Path,
    result: DemoResult,
    production: Production,
    *,
    corrupt: bool = False,
) -> None:
    """Stage 9: an improvement cycle and a second production day with a canary (docs/release.md)."""
    from loopline.demo.improvement import improvement_stage
    from loopline.demo.stage_summary import print_summary

    summary = improvement_stage(
        console,
        temporal_address=temporal_address,
        workdir=workdir / "improvement",
        state=state,
        promoted_root=workdir / "promotion" / "tasksets",
        production=production,
        corrupt=corrupt,
    )
    print_summary(console, summary)
    result.improvement = summary.decision
    result.improvement_problems = summary.problems()
    if result.page is not None:
        result.page.improvement = html_report.ImprovementView(
            adapter_id=summary.adapter_id,
            gate="passed"
            if summary.gate_passed
            else "stopped it" + (" (forced through: --corrupt)" if summary.forced else ""),
            decision=summary.decision,
            reason=summary.reason,
            problems=result.improvement_problems,
            families=summary.families,
            day=summary.day,
            trail=summary.events,
            path=summary.path,
            upper=SprtSettings().upper,
            lower=SprtSettings().lower,
        )
    result.seconds = time.monotonic() - result.started


def _change_rule(console: Console, live_url: str, admin_token: str, change: RuleChange) -> None:
    """The live system changes a rule (through the sandbox's admin routes, with its admin token)."""
    world = change.make(live_url, admin_token)
    console.print(
        f"rule changed in the sandbox: {change.describe(world)}; "
        f"it decides {', '.join(change.affected_claims)} of the queue"
    )


def _promotion(
    console: Console,
    kafka: KafkaSettings,
    temporal_address: str,
    workdir: Path,
    result: DemoResult,
    truth: Truth,
    *,
    domain: str,
    review: bool,
) -> None:
    """Stage 8: the run's edge cases through PromoteEdgeCaseWorkflow (docs/promotion.md)."""
    from loopline.demo.promotion import promotion_stage
    from loopline.kafka.publisher import PROMOTION_SOURCE, signed_publisher

    publisher = signed_publisher(
        PROMOTION_SOURCE, kafka, result.topic, key_file=role_file("promotion", workdir / "keys")
    )
    try:
        summary = promotion_stage(
            console,
            temporal_address=temporal_address,
            db_url=result.db_url,
            workdir=workdir / "promotion",
            truth=truth,
            domain=domain,
            publish=publisher,
            review=review,
        )
    finally:
        publisher.close()
    result.promoted = summary.published
    if result.page is not None:
        result.page.drafts = summary.statuses
    who = "a person" if review else "the [magenta]simulated reviewer[/]"
    console.print(
        f"promotion: {summary.drafts} drafts, reviewed by {who}: {len(summary.published)} published "
        f"({summary.task_set or 'no task set'} v{summary.task_set_version or 0}), {summary.rejected} rejected, {summary.refused} refused, "
        f"{summary.duplicates} duplicates; `loopline promote list --drafts-dir {workdir / 'promotion' / 'drafts'}`, "
        "`temporal workflow list`"
    )


def _verifier_card(
    console: Console, db_url: str, workdir: Path, result: DemoResult, parts: DemoDomain
) -> None:
    """Stage 7: the card for the verifier that scores training (`loopline verifiers report` in full)."""
    with console.status("verifier card: validation, expert set, mutants, exploits, agreement…") as status:
        card = build_card(
            domain=parts.name,
            **parts.scenario.card_sizes,
            workers=CARD_WORKERS,
            db_url=db_url,
            progress=lambda step: status.update(f"verifier card: {step}"),
        )
    render(card, console)
    write_json(card, workdir / "verifier_card.json")
    result.verifier_bars_met = not card.failing
    if result.page is not None:
        result.page.card = card
    console.print(
        f"verifier card: {workdir / 'verifier_card.json'} (all task sets: `loopline verifiers report`)"
    )


def _run_episodes(
    console: Console, api: str, items: list[Any], result: DemoResult, workers: int, label: str
) -> None:
    def run(item: Any) -> dict[str, Any]:
        with httpx.Client(base_url=api, headers=AGENT, timeout=120) as client:
            response = client.post("/v1/episodes", json={"work_item": item.model_dump(mode="json")})
            response.raise_for_status()
            return {**response.json(), "item_id": item.item_id}

    with _progress(console) as progress, ThreadPoolExecutor(workers) as pool:
        task = progress.add_task(label, total=len(items))
        for episode in pool.map(run, items):
            result.episodes.append(episode)
            progress.advance(task)


def _send_outcomes(console: Console, api: str, parts: DemoDomain, result: DemoResult) -> None:
    by_id = {item.item_id: item for item in parts.items}
    with httpx.Client(base_url=api, headers=AGENT, timeout=30) as client:
        for episode in result.episodes:
            detail = client.get(f"/v1/episodes/{episode['episode_id']}")
            calls = detail.json()["tool_calls"] if detail.status_code == 200 else []
            succeeded = [c["tool"] for c in calls if c["outcome"] == "ok"]
            planned = parts.scenario.later_outcome(
                episode["episode_id"], by_id[episode["item_id"]], succeeded
            )
            if planned is not None:
                client.post("/v1/outcomes", json=planned.body(), headers=INTEGRATION).raise_for_status()
                result.outcomes += 1
    console.print(f"{result.outcomes} later outcomes reported through the webhook")


def _wait_for_archive(
    console: Console, bridge: Any, db_url: str, result: DemoResult, timeout_s: float = 120
) -> None:
    archive = SqlEventArchive(db_url)
    archive.create_schema()
    deadline = time.monotonic() + timeout_s
    with _progress(console) as progress:
        task = progress.add_task("outbox → Kafka → projector → archive", total=result.events)
        while time.monotonic() < deadline:
            result.events = bridge.capture.outbox.last_pos()
            result.archived = archive.count(source=bridge.settings.source)
            progress.update(task, total=result.events, completed=result.archived)
            if result.archived >= result.events:
                break
            time.sleep(0.5)
    if result.archived < result.events:
        console.print(
            f"[yellow]the archive holds {result.archived} of {result.events} events after {timeout_s:.0f} s[/]"
        )
    time.sleep(2.0)  # the detector runs beside the projector; give its last findings a moment
