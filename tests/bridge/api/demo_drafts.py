"""Every task draft one `loopline demo` run made, with its source episode's archived events, for the
review desk's walk-through (`tests/bridge/api/test_review_demo_drafts.py`).

Remade from a demo run's folder (the run's `promotion/drafts` store and `archive.db`):
`python -m tests.bridge.api.demo_drafts .loopline/demo`."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import DraftStore
from schemas.codec import from_structured
from schemas.envelope import Event

HERE = Path(__file__).parent / "data" / "demo_drafts"


@dataclass(frozen=True)
class DemoDraft:
    """One draft of the run, and the events of the episode it was made from."""

    draft: TaskDraft
    events: list[Event]


def load(domain: str) -> list[DemoDraft]:
    """The drafts of the domain's demo run, in the order the files sort (by draft id)."""
    out = []
    for path in sorted((HERE / domain).glob("draft-*.json")):
        data = json.loads(path.read_text())
        out.append(
            DemoDraft(TaskDraft.model_validate(data["draft"]), [from_structured(e) for e in data["events"]])
        )
    return out


def export(run: Path, into: Path = HERE) -> int:
    """Write every draft of the demo run in `run` (those whose episode is in its archive), with
    its source episode's events, under the draft's domain (a run's drafts replace those of the
    domain's earlier run); how many."""
    from bridge.store import SqlEpisodeReader

    store = DraftStore(run / "promotion" / "drafts")
    reader = SqlEpisodeReader(f"sqlite:///{run / 'archive.db'}")
    count = 0
    replaced: set[str] = set()
    for status in store.statuses():
        draft = store.draft(status.draft_id)
        if draft is None:
            continue
        events = [s.structured for s in reader.episode_events(draft.source_episode_id)]
        if not events:
            continue  # a draft of an earlier run (the draft store is kept across runs)
        body = {"draft": draft.model_dump(mode="json"), "events": events}
        folder = into / draft.domain
        if draft.domain not in replaced:
            replaced.add(draft.domain)
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob("draft-*.json"):
                old.unlink()
        (folder / f"{draft.draft_id}.json").write_text(
            json.dumps(body, sort_keys=True, separators=(",", ":")) + "\n"
        )
        count += 1
    return count


if __name__ == "__main__":
    print(f"{export(Path(sys.argv[1]))} drafts written to {HERE}")
