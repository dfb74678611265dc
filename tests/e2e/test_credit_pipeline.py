"""The credit domain through the whole production path on real engines, as `make demo DOMAIN=credit`
runs it: a package queue worked through the bridge API against the deal-system sandbox (faults and
document damage injected), every event captured, relayed, archived exactly once, edge cases detected,
compliance certificates joined, every hash chain intact, and the `credit.v1` card meeting every bar
(a flag-following or blind desk beats doing nothing only on tasks whose flags tell the truth)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from rich.console import Console

from bridge.store import SqlEpisodeReader, SqlEventArchive
from bridge.store.tables import ARCHIVE_TABLE
from envs.credit.demo import queue_world
from loopline.demo.run import DemoResult, run_pipeline
from tests.conftest import StackHandle

pytestmark = [pytest.mark.e2e, pytest.mark.integration]
SOURCE = "loopline://bridge/credit"


@pytest.fixture(scope="module")
def pipeline(stack: StackHandle, tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    workdir = Path(tmp_path_factory.mktemp("credit")) / "demo"
    return run_pipeline(Console(quiet=True), stack.kafka, workdir, workers=3, domain="credit")


def test_every_package_is_worked_and_every_event_archived_once_under_the_credit_source(
    pipeline: DemoResult,
) -> None:
    assert len(pipeline.episodes) == len(queue_world().packages)
    assert pipeline.events > 300 and pipeline.archived == pipeline.events and pipeline.audit_ok
    archive = SqlEventArchive(pipeline.db_url)
    with archive.engine.connect() as conn:
        ids = [
            r[0]
            for r in conn.execute(sa.select(ARCHIVE_TABLE.c.event_id).where(ARCHIVE_TABLE.c.source == SOURCE))
        ]
    assert len(ids) == len(set(ids)) == pipeline.events


def test_faults_damage_foreign_currency_and_a_breach_are_detected_as_edge_cases(pipeline: DemoResult) -> None:
    reader = SqlEpisodeReader(SqlEventArchive(pipeline.db_url).engine)
    rules = {case.rule for case in reader.list_edge_cases(limit=1000)}
    assert {
        "outcome_contradiction", "unknown_vocabulary", "tool_failure.unknown_outcome",
        "tool_failure.http_5xx", "tool_failure.live_rejected",
    } <= rules  # fmt: skip


def test_statements_reached_the_analyst_from_both_kinds_of_document(pipeline: DemoResult) -> None:
    archive = SqlEventArchive(pipeline.db_url)
    sources: set[str] = set()
    with archive.engine.connect() as conn:
        query = sa.select(ARCHIVE_TABLE.c.structured).where(ARCHIVE_TABLE.c.type.like("%tool.returned%"))
        for (doc,) in conn.execute(query):
            data = json.loads(doc)["data"]
            if data["name"] == "get_financial_statements":
                sources.add(data["result"]["period"]["source"])
    assert sources == {"workbook", "pdf_table"}


def test_the_credit_card_meets_every_bar_and_the_demo_says_so(pipeline: DemoResult) -> None:
    """The generator's traps make the flags mislead in most packages, so a policy that follows them
    (the `follow_the_flags` exploit, the blind desks) wins only on tasks tagged `visible:flags-hold`,
    which the hackability rule allows and the card lists."""
    card = json.loads((pipeline.workdir / "verifier_card.json").read_text())
    assert card["failing"] == [] and pipeline.verifier_bars_met
    (verifier,) = card["exploits"]["verifiers"]
    assert verifier["fooled_tasks"] == 0
    assert card["blind"] is not None and set(card["blind"]["visible"].values()) == {"flags-hold"}
