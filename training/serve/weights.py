"""What an adapter's weights file must be before a model reads it: safetensors, whole.

Pickled weights (`adapter_model.bin`) are refused: reading one runs code from the file. A
safetensors file is checked by its header (an 8-byte little-endian length, then a JSON object
whose tensors' byte ranges lie inside the file), so a truncated or garbled file is a clear 400
instead of an error deep in a loader.
"""

from __future__ import annotations

import json
from pathlib import Path

WEIGHTS = "adapter_model.safetensors"
PICKLED = "adapter_model.bin"
MAX_HEADER_BYTES = 100 * 1024 * 1024


def weights_problem(folder: Path) -> str | None:
    """Why the adapter in `folder` has no readable safetensors weights, or None."""
    if (folder / PICKLED).exists():
        return f"{PICKLED} is pickled weights, which this server never reads: save the adapter as safetensors"
    path = folder / WEIGHTS
    if not path.is_file():
        return f"{folder} holds no {WEIGHTS}"
    try:
        with path.open("rb") as f:
            size = path.stat().st_size
            length = int.from_bytes(f.read(8), "little")
            if size < 8 or not 2 <= length <= min(MAX_HEADER_BYTES, size - 8):
                return f"{WEIGHTS} is not a safetensors file (header length {length}, file {size} bytes)"
            header = json.loads(f.read(length))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{WEIGHTS} cannot be read as safetensors: {exc}"
    if not isinstance(header, dict):
        return f"{WEIGHTS}'s header is not a JSON object"
    data_bytes = size - 8 - length
    for name, tensor in header.items():
        if name == "__metadata__":
            continue
        offsets = tensor.get("data_offsets") if isinstance(tensor, dict) else None
        if not _within(offsets, data_bytes):
            return f"{WEIGHTS}: tensor {name!r} points outside the file (truncated or corrupt)"
    return None


def _within(offsets: object, data_bytes: int) -> bool:
    if not (isinstance(offsets, list) and len(offsets) == 2):
        return False
    start, end = offsets
    return isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= data_bytes
