"""One variant of the demo's improvement cycle on a kept demo state: the cycle's dataset, the LoRA,
both gate suites paired against the champion, and the product's default gate (the figures of
docs/release.md's replay-share table).

    .venv/bin/python bench/stage_variants.py .loopline base '{}'
    .venv/bin/python bench/stage_variants.py .loopline r95 '{"replay_ratio": 0.95}'
    .venv/bin/python bench/stage_variants.py .loopline rank4 '{"settings": {"rank": 4}}'

The first argument is a demo run's state folder (`.loopline`, after `loopline demo`); the JSON
overrides `StageConfig` fields and, under `settings`, the cycle's `CycleSettings`. Work goes to
/tmp/stage-variants/NAME. One torch thread, as the demo's stage runs (about 5 to 8 minutes a variant
on a 2-core machine); the same arguments give the demo's own gate figures.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch


def main(state: Path, name: str, overrides: dict[str, Any]) -> None:
    from loopline.demo.improvement import cycle_input, expressible, promoted_tasks, source_families
    from loopline.demo.stage_config import DEMO_STAGE
    from training.evaluate import EvalReport, pair, run_suite
    from training.gate import DEFAULT_RULES, judge
    from training.loop import LoopConfig
    from training.lora import LoraSettings
    from training.policies import load_policy
    from training.structured.sft import sft_structured
    from workflows.improvement.activities import ImprovementActivities, load_source

    torch.set_num_threads(1)
    work = Path("/tmp/stage-variants") / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(state / "demo" / "improvement" / "tasksets", work / "tasksets")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items() if k != "settings"}
    config = replace(DEMO_STAGE, **fields)
    promoted = [t for t in promoted_tasks(state / "demo" / "promotion" / "tasksets") if expressible(t)]
    base = state / "models" / "demo-champion"
    data = cycle_input(
        work, base, f"variant-{name}", "unused", families=source_families(promoted), config=config
    )
    if "settings" in overrides:
        data = data.model_copy(update={"settings": data.settings.model_copy(update=overrides["settings"])})
    started = time.monotonic()
    dataset = ImprovementActivities().build_dataset(data)
    s = data.settings
    adapter = work / "adapter"
    sft_structured(
        base,
        Path(dataset.folder),
        adapter,
        settings=LoraSettings(r=s.rank, alpha=2 * s.rank),
        loop=LoopConfig(epochs=s.epochs, batch_size=s.batch_size, lr=s.lr, seed=0, checkpoint_every=1000),
    )
    trained = time.monotonic()
    mine, theirs = load_policy(base, adapter, name="candidate"), load_policy(base, name="base:champion")
    paired = []
    for suite in s.suites:
        tasks = [t for loaded in load_source(suite.tasks, Path(s.tasksets_root)) for t in loaded.tasks]
        paired.append(
            pair(run_suite(mine, suite.name, tasks, [0]), run_suite(theirs, suite.name, tasks, [0]))
        )
    verdict = judge(
        EvalReport(candidate="candidate", champion="base:champion", seeds=[0], suites=paired), DEFAULT_RULES
    )
    print(
        f"{name}: {dataset.rows} rows, {trained - started:.0f} s to train, {time.monotonic() - trained:.0f} s to evaluate"
    )
    for p in paired:
        print(
            f"  {p.suite}: {p.champion:.3f} -> {p.candidate:.3f} (95% interval {p.ci_low:+.3f} to {p.ci_high:+.3f})"
        )
        for f in p.families:
            if abs(f.candidate - f.champion) > 1e-9:
                print(f"    {f.family}: {f.champion:.3f} -> {f.candidate:.3f}")
    print(f"  default gate: {'passes' if verdict.passed else 'stops it'} {list(verdict.reasons)}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]))
