"""Benchmark: which gold calls each action space of the structured policy can express, per family.

    nice -n 10 .venv/bin/python bench/expressibility.py [--train-seeds 1-6] [--eval-seed 0]

For every domain, the policy is "trained" on its base task set (the gold rows of `--train-seeds`,
every gold and alternative trajectory) and then asked to express the gold calls of every task set
of the domain generated with `--eval-seed` (base, edge, queues, twins; the base's evaluation seed
is one training never used). Counted per (set, family), over every assistant turn of every gold
and alternative trajectory:

- `template`: today's decision head. The call abstracts into a template
  (`training.structured.templates`) with no value found nowhere, and that template is in the
  vocabulary built from the training rows (`vocab_from_rows`, as `train bootstrap` builds it).
- `compositional`: `training.structured.compose.express` with the lexicon of the training rows'
  free text: the tool, then every argument by its schema kind (choice, copy, derived, text).

For the derived numbers the space needs, `chance` is the share of nearby wrong values (the gold
number moved by 1-10%, rounded as written) the same search also finds: where it is high, finding
a derivation says little about finding the intended one. Writes bench/results/expressibility.json.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from envs.domain import DOMAINS
from training.data import ChatRow, DatasetSpec, build_dataset, load_task_set
from training.data.sources import task_family
from training.structured.compose import Sources, derivable, express, free_texts, lexicon
from training.structured.examples import vocab_from_rows
from training.structured.observe import observe
from training.structured.templates import abstract
from training.structured.vocab import Vocab

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "expressibility.json"


def _seeds(text: str) -> tuple[int, ...]:
    low, _, high = text.partition("-")
    return tuple(range(int(low), int(high or low) + 1))


def _rows(name: str, seeds: Sequence[int], root: Path) -> tuple[list[ChatRow], dict[str, str]]:
    sets = tuple(load_task_set(name, root=root, seed=s) for s in seeds)
    families = {t.task_id: task_family(t) for s in sets for t in s.tasks}
    return list(build_dataset(DatasetSpec(name=f"expressibility-{name}", primary=sets)).rows), families


def _numbers_in(message: Mapping[str, Any]) -> list[float]:
    found: list[float] = []

    def visit(value: Any) -> None:
        if isinstance(value, Mapping):
            for inner in value.values():
                visit(inner)
        elif isinstance(value, list):
            for inner in value:
                visit(inner)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append(float(value))

    for call in message.get("tool_calls") or ():
        visit(json.loads(call["function"]["arguments"]))
    return found


def _count(
    rows: Sequence[ChatRow],
    families: Mapping[str, str],
    vocab: Vocab,
    words: frozenset[str],
    rng: random.Random,
) -> dict[str, dict[str, Any]]:
    per: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        family = families[row.meta.task_id]
        for i, message in enumerate(row.messages):
            if message.get("role") != "assistant":
                continue
            obs = observe(row.messages[:i], row.tools)
            counts = per[family]
            counts["calls"] += 1
            action = abstract(message, obs, row.tools)
            counts["template"] += int(not action.uncopied and vocab.template_id(action.template) is not None)
            sources = Sources.of(obs, row.tools)
            found = express(message, obs, row.tools, words, sources)
            counts["compositional"] += int(found.ok)
            counts["grounded"] += int(found.grounded)
            counts["leaves"] += len(found.kinds)
            counts["spelled_calls"] += int(bool(found.spelled))
            if found.error:
                reasons[family][f"not well formed: {found.error}"] += 1
            for spelled in found.spelled:
                reasons[family][spelled] += 1
            if "derived" in found.kinds:
                counts["with_derived"] += 1
                for number in _numbers_in(message):
                    if derivable(number, sources.numbers) and not _plain_copy(number, sources):
                        moved = round(number * (1 + rng.choice((-1, 1)) * rng.uniform(0.01, 0.1)), 2)
                        counts["chance_trials"] += 1
                        counts["chance_found"] += int(derivable(moved, sources.numbers))
    out: dict[str, dict[str, Any]] = {}
    for family, counts in sorted(per.items()):
        n = counts["calls"]
        out[family] = {
            "calls": n,
            "template": round(counts["template"] / n, 4),
            "compositional": round(counts["compositional"] / n, 4),
            "grounded": round(counts["grounded"] / n, 4),
            "calls_with_derived": counts["with_derived"],
            "chance": round(counts["chance_found"] / counts["chance_trials"], 3)
            if counts["chance_trials"]
            else None,
            "spelled": dict(reasons[family].most_common(5)),
        }
    return out


def _plain_copy(number: float, sources: Sources) -> bool:
    return bool((abs(sources.numbers - number) <= 0.005).any())


def markdown(result: Mapping[str, Any]) -> str:
    """The per-family table of docs/training.md."""
    lines = [
        "| domain | set | family | calls | template | compositional | grounded | chance |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, found in result["domains"].items():
        for set_name, families in found["sets"].items():
            for family, r in families.items():
                chance = "" if r["chance"] is None else f"{r['chance']:.0%}"
                lines.append(
                    f"| {name} | {set_name} | {family} | {r['calls']} | {r['template']:.1%} | "
                    f"{r['compositional']:.1%} | {r['grounded']:.1%} | {chance} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--train-seeds", default="1-6")
    parser.add_argument("--eval-seed", type=int, default=0)
    parser.add_argument("--root", type=Path, default=Path("/tmp/loopline-expressibility"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--markdown", action="store_true", help="Print the table of the results in --out.")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.out.read_text())))
        return
    started = time.time()
    train_seeds = _seeds(args.train_seeds)
    rng = random.Random(0)
    domains: dict[str, Any] = {}
    for domain in DOMAINS.all():
        base = f"{domain.name}-base"
        if base not in domain.task_sets:
            continue  # a domain without a base set (the toy) has nothing to train on
        train, _ = _rows(base, train_seeds, args.root)
        vocab = vocab_from_rows(train)
        words = lexicon(text for row in train for text in free_texts(row.messages, row.tools))
        sets = {}
        for name in domain.task_sets:
            rows, families = _rows(name, (args.eval_seed,), args.root)
            sets[name] = _count(rows, families, vocab, words, rng)
            print(f"{time.time() - started:6.0f}s {name}: {len(rows)} rows", flush=True)
        domains[domain.name] = {
            "trained_on": f"{base} seeds {args.train_seeds} ({len(train)} rows)",
            "templates": len(vocab.templates),
            "lexicon_words": len(words),
            "sets": sets,
        }
    result = {
        "command": "bench/expressibility.py",
        "train_seeds": list(train_seeds),
        "eval_seed": args.eval_seed,
        "seconds": round(time.time() - started, 1),
        "domains": domains,
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for name, found in domains.items():
        for set_name, families in found["sets"].items():
            for family, r in families.items():
                print(
                    f"{name:7s} {set_name:12s} {family:36s} {r['calls']:5d} "
                    f"template {r['template']:6.1%} compositional {r['compositional']:6.1%} "
                    f"grounded {r['grounded']:6.1%} chance {r['chance']} {list(r['spelled'])[:3]}"
                )


if __name__ == "__main__":
    main()
