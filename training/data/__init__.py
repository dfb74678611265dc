"""Datasets in the chat-with-tools format (`messages` + `tools`), PHI-safe, with manifests.

`sources` loads task sets (any version, any built-in seed); `episodes` renders their gold and
alternative trajectories into exactly the messages the runtime sends a model (`adapters.chat`);
`phi` replaces PHI with consistent surrogates; `builder` mixes in a replay buffer, writes the JSONL
and its manifest. See docs/training.md.
"""

from training.data.builder import DatasetSpec, build_dataset, load_dataset, write_dataset
from training.data.episodes import DONE_MESSAGE, solution_row, task_rows
from training.data.manifest import DatasetManifest, SourceRecord
from training.data.phi import PhiScrubber, raw_phi_values
from training.data.rows import ChatRow, RowMeta
from training.data.sources import LoadedTaskSet, load_task_set

__all__ = [
    "DONE_MESSAGE",
    "ChatRow",
    "DatasetManifest",
    "DatasetSpec",
    "LoadedTaskSet",
    "PhiScrubber",
    "RowMeta",
    "SourceRecord",
    "build_dataset",
    "load_dataset",
    "load_task_set",
    "raw_phi_values",
    "solution_row",
    "task_rows",
    "write_dataset",
]
