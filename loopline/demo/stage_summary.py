"""What the demo's improvement stage showed (`ImprovementSummary`), every way the loop can fail to
close (`problems`), and its lines in the demo's report (`print_summary`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from loopline.demo.charts import FamilyRates
from loopline.demo.stage_config import MIN_GAIN_POINTS


@dataclass
class ImprovementSummary:
    """What the stage showed."""

    adapter_id: str
    forced: bool = False
    """The cycle was forced through the gate on purpose (`--corrupt`)."""
    gate_passed: bool = False
    decision: str = ""
    reason: str = ""
    before: float = 0.0
    after: float = 0.0
    new_cases: int = 0
    day2_episodes: int = 0
    canary_episodes: int = 0
    trail: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """The adapter's stream in the release store: lineage, evaluation, canary and decision."""
    families: list[FamilyRates] = field(default_factory=list)
    """Every family of the second day, champion and adapter on the same cases."""
    day: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """(case id, family, served name, passed) for each second-day episode, as routed."""
    path: list[float] = field(default_factory=list)
    """The sequential test's log-likelihood ratio after each discordant pair."""
    seconds: float = 0.0
    claimed_gain: float = MIN_GAIN_POINTS
    """The least gain on the day's promoted cases the stage claims, in points."""
    promoted_cases: int = 0
    """How many cases stage 8 published that the demo's policy can write (`expressible`)."""
    beyond_policy: list[str] = field(default_factory=list)
    """Published cases whose gold the demo's policy cannot write: named, left out of the cycle."""
    sets: dict[str, int] = field(default_factory=dict)
    """The cycle's task sets and their sizes."""
    left_off_day: list[tuple[str, str]] = field(default_factory=list)
    """Second-day cases the sandbox could not hold (task id, why): not served through production."""

    def problems(self) -> list[str]:
        """Why the stage did not show what it claims (empty when it did): a good cycle is passed by
        the gate, served by the canary, gains on the promoted cases and is promoted; a forced bad one is
        rolled back."""
        if self.forced:
            if self.decision != "roll_back":
                return [f"the forced bad adapter was not rolled back (decision {self.decision or 'none'})"]
            return []
        if self.promoted_cases == 0:
            if self.beyond_policy:
                return [
                    "stage 8 published no promoted case the demo's policy can write: the cycle had nothing to learn"
                ]
            return ["stage 8 published no promoted case: the cycle had nothing to learn"]
        out = []
        if not self.gate_passed:
            out.append(f"the gate stopped the cycle: {self.reason or 'no reason recorded'}")
        if self.canary_episodes == 0:
            out.append("the canary served no episode of the second day")
        gain = 100 * (self.after - self.before)
        if self.families and not any(r.after.total for r in self.families):
            out.append("the adapter was never served, so nothing shows a gain on the day's promoted cases")
        elif gain < self.claimed_gain:
            out.append(
                f"the adapter gained {gain:+.0f} points on the day's promoted cases "
                f"({self.before:.0%} -> {self.after:.0%}); the stage claims at least +{self.claimed_gain:.0f}"
            )
        if self.gate_passed and self.decision != "promote":
            out.append(f"the sequential test did not promote the adapter ({self.decision or 'no decision'})")
        return out


def print_summary(console: Console, summary: ImprovementSummary) -> None:
    """The stage's lines in the demo's report."""
    gate = "passed" if summary.gate_passed else "[red]stopped it[/]"
    if summary.forced:
        gate += " (forced through on purpose: --corrupt)"
    console.print(
        f"improvement: adapter {summary.adapter_id}, gate {gate}; second day {summary.day2_episodes} episodes, "
        f"{summary.canary_episodes} served by the canary"
    )
    for case in summary.beyond_policy:
        console.print(
            f"left out of the cycle: {case}, whose gold writes a value no tool returns (the demo's structured "
            "policy copies every value it writes; a language-model adapter would not be limited so)"
        )
    for case, why in summary.left_off_day:
        console.print(f"second day: {case} not served through the bridge: the sandbox cannot reproduce {why}")
    after = f"{summary.after:.0%} (adapter)"
    if not any(r.after.total for r in summary.families):
        after = "the adapter was not served"
    console.print(
        f"instances of the promoted cases on the day ({summary.new_cases}): pass rate {summary.before:.0%} (champion) → "
        + after
    )
    colour = "green" if summary.decision == "promote" else "red"
    console.print(f"canary decision: [{colour}]{summary.decision}[/]: {summary.reason}")
    console.print(
        "release events: "
        + ", ".join(re.sub(r"\.v\d+$", "", t.removeprefix("loopline.")) for t in summary.trail)
    )
    for problem in summary.problems():
        console.print(f"[red]the loop did not close:[/] {problem}")
