"""`loopline train`: datasets, LoRA fine-tuning, evaluation and the gate (docs/training.md).

Heavy imports (torch, peft, transformers) happen inside the commands, so `loopline --help` stays fast.
"""

from __future__ import annotations

import typer

from loopline.commands.train.bootstrap import bootstrap
from loopline.commands.train.dataset import dataset
from loopline.commands.train.evaluate import eval_, gate, report
from loopline.commands.train.export import export
from loopline.commands.train.grpo import grpo
from loopline.commands.train.rft import rft
from loopline.commands.train.sft import sft

app = typer.Typer(help="Training: datasets, LoRA fine-tuning, evaluation and the gate.", no_args_is_help=True)
app.command()(dataset)
app.command()(bootstrap)
app.command()(sft)
app.command("eval")(eval_)
app.command()(gate)
app.command()(report)
app.command()(rft)
app.command()(grpo)
app.command()(export)
