"""Expert labelling through the bridge API over a real server: the queue, one episode, labels in and out."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI

from adapters.serving import serve_in_thread
from bridge.api.auth import Role, TokenTable
from bridge.api.labels import label_router
from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive
from loopline.card.agreement import archived_agreement
from schemas import EpisodeChain
from schemas.events import VerifierScored
from schemas.verdicts import Verdict
from tests.bridge.api.conftest import TOKENS, Bridge
from tests.bridge.store.builders import T0, EpisodeBuilder

pytestmark = pytest.mark.integration

WORK_ITEM = {
    "domain": "rcm",
    "kind": "denial",
    "item_id": "CLM-1001",
    "instructions": "Work this denied claim.",
    "payload": {"claim_id": "CLM-1001"},
}


def _score(archive: SqlEventArchive, episode_id: str, verifier: str, score: float) -> None:
    """Append `verifier.scored` to an archived episode, continuing its chain as a scorer would."""
    next_seq, prevhash = archive.stream_tip(episode_id)
    chain = EpisodeChain(
        episode_id, tenant="acme", source="loopline://verifier/test", next_seq=next_seq, prevhash=prevhash
    )
    verdict = Verdict(verifier=verifier, score=score, passed=score == 1.0)
    archive.append([ArchiveRecord.of(chain.append(VerifierScored(task_id="rcm-16-01", verdict=verdict)))])


def _scored_episodes(bridge: Bridge, *ids: str) -> None:
    for i, episode_id in enumerate(ids):
        ep = EpisodeBuilder(episode_id, start=T0 + timedelta(hours=i))
        ep.started()
        ep.ended()
        bridge.archive.append([ArchiveRecord.of(e) for e in ep.events])
        _score(bridge.archive, episode_id, "rcm.v2", 1.0 if i % 2 == 0 else 0.5)


def _label(subject: str, label: str = "pass", **extra: str) -> dict[str, str]:
    return {
        "subject": subject,
        "label": label,
        "reason": "appeal cites CO-16 and the claim",
    } | extra


def test_labels_need_the_reviewer_role(bridge: Bridge) -> None:
    _scored_episodes(bridge, "ep-1")
    assert bridge.client(None).get("/v1/labels/queue").status_code == 401
    assert bridge.client("agent-token").get("/v1/labels/queue").status_code == 403
    assert bridge.client("agent-token").post("/v1/labels", json=_label("ep-1")).status_code == 403
    assert bridge.client("operator-token").get("/v1/labels/queue").status_code == 403
    assert bridge.client("reviewer-token").get("/v1/labels/queue").status_code == 200


def test_a_reviewer_labels_the_queue_oldest_first_and_the_label_leaves_it(bridge: Bridge) -> None:
    _scored_episodes(bridge, "ep-old", "ep-mid", "ep-new")
    reviewer = bridge.client("reviewer-token")
    queue = reviewer.get("/v1/labels/queue", params={"reviewer": "ana"}).json()
    assert [c["episode_id"] for c in queue] == ["ep-old", "ep-mid", "ep-new"]
    assert queue[0]["verifiers"] == ["rcm.v2"] and "score" not in queue[0]
    posted = reviewer.post("/v1/labels", json=_label("ep-old"))
    assert posted.status_code == 201, posted.text
    assert posted.json()["task_id"] == "rcm-16-01" and posted.json()["source"] == "reviewer"
    left = reviewer.get("/v1/labels/queue", params={"reviewer": "ana"}).json()
    assert [c["episode_id"] for c in left] == ["ep-mid", "ep-new"]
    others = reviewer.get("/v1/labels/queue", params={"reviewer": "bo"}).json()
    assert [c["episode_id"] for c in others] == ["ep-old", "ep-mid", "ep-new"]


def test_a_random_queue_is_reproducible_from_its_seed(bridge: Bridge) -> None:
    _scored_episodes(bridge, *(f"ep-{i:02}" for i in range(12)))
    reviewer = bridge.client("reviewer-token")
    params: dict[str, str | int] = {"order": "random", "seed": 3, "limit": 5}
    first = [c["episode_id"] for c in reviewer.get("/v1/labels/queue", params=params).json()]
    again = [c["episode_id"] for c in reviewer.get("/v1/labels/queue", params=params).json()]
    assert first == again and len(set(first)) == 5


def test_an_episode_is_shown_blind_unless_asked_otherwise(bridge: Bridge) -> None:
    _scored_episodes(bridge, "ep-1")
    reviewer = bridge.client("reviewer-token")
    bridge.client("other-reviewer-token").post("/v1/labels", json=_label("ep-1"))
    blind = reviewer.get("/v1/labels/episodes/ep-1").json()
    assert blind["blind"] is True and blind["verdicts"] == [] and blind["labels"] == []
    assert blind["episode"]["episode"]["episode_id"] == "ep-1"
    assert [e["type"] for e in blind["events"]] == [
        "loopline.episode.started.v2",
        "loopline.episode.ended.v1",
    ]
    seen = reviewer.get("/v1/labels/episodes/ep-1", params={"blind": "false"}).json()
    assert [(v["verifier"], v["score"]) for v in seen["verdicts"]] == [("rcm.v2", 1.0)]
    assert seen["events"][-1]["type"] == "loopline.verifier.scored.v2"
    assert [x["reviewer"] for x in seen["labels"]] == ["bo"]
    assert reviewer.get("/v1/labels/episodes/nope").status_code == 404


def test_relabelling_replaces_the_label_and_answers_200(bridge: Bridge) -> None:
    _scored_episodes(bridge, "ep-1")
    reviewer = bridge.client("reviewer-token")
    assert reviewer.post("/v1/labels", json=_label("ep-1")).status_code == 201
    again = reviewer.post(
        "/v1/labels",
        json=_label(
            "ep-1", "fail", reason="closed the claim while the appeal was pending", verifier="rcm.v2"
        ),
    )
    assert again.status_code == 200
    listed = reviewer.get("/v1/labels", params={"subject": "ep-1"}).json()
    assert [(x["label"], x["verifier"], x["reason"]) for x in listed] == [
        ("fail", "rcm.v2", "closed the claim while the appeal was pending")
    ]
    assert reviewer.get("/v1/labels", params={"verifier": "rcm.v1"}).json() == []


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"reason": "   "}, 422),
        ({"reason": ""}, 422),
        ({"label": "maybe"}, 422),
        ({"reviewer": "ana"}, 422),
        ({"subject": "no-such-episode"}, 404),
        ({"extra": "x"}, 422),
    ],
)
def test_a_bad_label_is_refused_with_a_clear_status(
    bridge: Bridge, change: dict[str, str], status: int
) -> None:
    _scored_episodes(bridge, "ep-1")
    answer = bridge.client("reviewer-token").post("/v1/labels", json=_label("ep-1") | change)
    assert answer.status_code == status, answer.text
    assert answer.json()["detail"]
    assert bridge.client("reviewer-token").get("/v1/labels").json() == []


def test_an_episode_run_through_the_bridge_and_scored_later_can_be_labelled(bridge: Bridge) -> None:
    run = bridge.client("agent-token").post("/v1/episodes", json={"work_item": WORK_ITEM}).json()
    bridge.project()
    _score(bridge.archive, run["episode_id"], "rcm.v2", 0.0)
    reviewer = bridge.client("reviewer-token")
    [candidate] = reviewer.get("/v1/labels/queue").json()
    assert candidate["episode_id"] == run["episode_id"]
    case = reviewer.get(f"/v1/labels/episodes/{run['episode_id']}").json()
    assert [c["tool"] for c in case["episode"]["tool_calls"]] == ["get_remittance"]
    label = _label(run["episode_id"], "fail", reason="read the remittance and did nothing about the denial")
    assert reviewer.post("/v1/labels", json=label).status_code == 201


def test_without_a_label_store_the_routes_answer_503(tmp_path: Path) -> None:
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    app = FastAPI()
    app.state.tokens = TokenTable.from_tokens(TOKENS)
    app.include_router(label_router(None, SqlEpisodeReader(archive.engine)))
    with serve_in_thread(app, name="labels-api") as url:
        bridge = Bridge(url, capture=None, archive=archive)  # type: ignore[arg-type]
        answer = bridge.client("reviewer-token").get("/v1/labels/queue")
    assert answer.status_code == 503 and "no label store" in answer.json()["detail"]
    assert TokenTable.from_tokens(TOKENS).role_of("reviewer-token") is Role.REVIEWER


def test_a_label_is_the_callers_and_names_in_the_body_cannot_add_reviewers(bridge: Bridge) -> None:
    # One reviewer token posting under invented names once took a verifier from "not fit" to "fit":
    # the name is the token's identity, so such posts are refused and only the caller's label counts.
    _scored_episodes(bridge, "ep-1")
    reviewer = bridge.client("reviewer-token")
    for name in ("carol", "dave", "erin"):
        refused = reviewer.post("/v1/labels", json=_label("ep-1") | {"reviewer": name})
        assert refused.status_code == 422 and "reviewer" in refused.text
    assert reviewer.post("/v1/labels", json=_label("ep-1")).status_code == 201
    assert reviewer.post("/v1/labels", json=_label("ep-1", "fail")).status_code == 200
    listed = reviewer.get("/v1/labels", params={"subject": "ep-1"}).json()
    assert [(x["reviewer"], x["label"]) for x in listed] == [("ana", "fail")]


def test_one_token_cannot_move_the_agreement_figures_by_posting_under_other_names(bridge: Bridge) -> None:
    ids = [f"ep-{i:02}" for i in range(10)]
    _scored_episodes(bridge, *ids)  # rcm.v2 passes the even ones
    url = str(bridge.archive.engine.url)
    reviewer = bridge.client("reviewer-token")
    for name in (f"invented-{n}" for n in range(9)):  # the attack: every episode, "agreeing", under 9 names
        for i, episode_id in enumerate(ids):
            posted = reviewer.post(
                "/v1/labels", json=_label(episode_id, "pass" if i % 2 == 0 else "fail", reviewer=name)
            )
            assert posted.status_code == 422
    assert archived_agreement(url).labels == 0
    for _ in range(3):  # relabelling as oneself counts once per episode
        for episode_id in ids:
            assert reviewer.post("/v1/labels", json=_label(episode_id, "pass")).status_code in (200, 201)
    report = archived_agreement(url, min_labels=1)
    assert report.labels == 10 and [(r.reviewer, r.labels) for r in report.reviewers] == [("ana", 10)]
    [summary] = report.verifiers
    assert summary.agreement.n == 10 and summary.agreement.kappa == 0.0
    bridge.client("other-reviewer-token").post("/v1/labels", json=_label("ep-00", "pass"))
    between = archived_agreement(url, min_labels=1).between_reviewers
    assert between is not None and between.n == 1
