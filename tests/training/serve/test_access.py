"""The policy server's access rules: which key opens which route, which folders an adapter may
come from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.training.serve.keys import KEYS
from training.serve.access import AccessKeys, AdapterPathError, adapter_folder, refusal
from training.serve.pool import ADAPTER_FILES


def test_no_token_and_a_wrong_token_are_refused_on_every_route() -> None:
    for path in ("/v1/chat/completions", "/v1/models", "/health", "/metrics", "/v1/load_lora_adapter"):
        for header in (None, "", "Bearer", "Basic " + KEYS.serving, "Bearer not-a-key-of-this-server"):
            refused = refusal(path, header, KEYS)
            assert refused is not None and refused.status == 401, (path, header)


def test_the_serving_key_serves_but_cannot_load_or_unload() -> None:
    for path in ("/v1/chat/completions", "/v1/models", "/health"):
        assert refusal(path, f"Bearer {KEYS.serving}", KEYS) is None
        assert refusal(path, f"bearer {KEYS.release}", KEYS) is None
    for path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
        refused = refusal(path, f"Bearer {KEYS.serving}", KEYS)
        assert refused is not None and refused.status == 403 and "release key" in refused.message
        assert refusal(path, f"Bearer {KEYS.release}", KEYS) is None


def test_keys_must_be_long_and_distinct() -> None:
    with pytest.raises(ValueError, match="16 characters"):
        AccessKeys(serving="short", release="release-key-long-enough")
    with pytest.raises(ValueError, match="must differ"):
        AccessKeys(serving="same-key-0123456789", release="same-key-0123456789")


def _adapter_at(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text("{}")
    (folder / "adapter_model.safetensors").write_bytes(b"")
    return folder


def test_an_adapter_path_under_the_root_resolves_relative_or_absolute(tmp_path: Path) -> None:
    root = tmp_path / "adapters"
    inside = _adapter_at(root / "cycle-1")
    assert adapter_folder(root, "cycle-1", ADAPTER_FILES) == inside.resolve()
    assert adapter_folder(root, str(inside), ADAPTER_FILES) == inside.resolve()


def test_paths_that_escape_the_root_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "adapters"
    root.mkdir()
    outside = _adapter_at(tmp_path / "elsewhere")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    sneaky = _adapter_at(root / "sneaky")
    (sneaky / "adapter_model.safetensors").unlink()
    (sneaky / "adapter_model.safetensors").symlink_to(outside / "adapter_model.safetensors")
    for requested, why in (
        (str(outside), "outside the adapter root"),
        ("../elsewhere", "`..` is not allowed"),
        (f"{root}/../elsewhere", "`..` is not allowed"),
        ("linked", "outside the adapter root"),
        ("/etc", "outside the adapter root"),
        ("sneaky", "links outside the adapter root"),
        ("cycle\0", "NUL"),
    ):
        with pytest.raises(AdapterPathError, match=why):
            adapter_folder(root, requested, ADAPTER_FILES)


def test_an_unreadable_release_store_refuses_the_load_with_503(tmp_path: Path) -> None:
    from engine import ScriptedPolicy, say
    from tests.loopline.gated import safetensors_bytes
    from training.serve.pool import AdapterError, PolicyPool

    def down(_name: str) -> str | None:
        raise ConnectionError("the database is down")

    folder = _adapter_at(tmp_path / "adapters" / "cycle-1")
    (folder / "adapter_model.safetensors").write_bytes(safetensors_bytes("cycle-1"))
    pool = PolicyPool(
        lambda _a, _n: ScriptedPolicy(lambda _m: say("-")),
        "base",
        root=tmp_path / "adapters",
        registered=down,
    )  # type: ignore[arg-type,return-value]
    with pytest.raises(AdapterError, match="release store cannot be read") as refused:
        pool.load("cycle-1", "cycle-1")
    assert refused.value.status == 503 and pool.names() == ["base"]
