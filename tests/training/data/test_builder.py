"""Datasets are deterministic, mixed with a replay buffer, hashed, and immutable once written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from training.data import DatasetSpec, LoadedTaskSet, build_dataset, load_dataset, write_dataset
from training.data.builder import DatasetError


def test_the_same_spec_builds_the_same_bytes_and_the_manifest_names_them(
    small_base: LoadedTaskSet, tmp_path: Path
) -> None:
    spec = DatasetSpec(name="d", primary=(small_base,))
    first, second = build_dataset(spec), build_dataset(spec)
    assert first.manifest.content_hash == second.manifest.content_hash
    folder = write_dataset(first, tmp_path)
    data = (folder / "data.jsonl").read_bytes()
    assert hashlib.sha256(data).hexdigest() == first.manifest.content_hash
    assert load_dataset(folder).rows == first.rows


def test_the_manifest_counts_rows_by_source_role_and_family(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet
) -> None:
    dataset = build_dataset(
        DatasetSpec(name="d", primary=(small_edge,), replay=(small_base,), replay_ratio=0.25, seed=3)
    )
    manifest = dataset.manifest
    primary, replay = manifest.sources
    assert (primary.role, replay.role) == ("primary", "replay")
    assert primary.rows + replay.rows == manifest.rows == len(dataset.rows)
    assert replay.rows == round(primary.rows * 0.25 / 0.75)
    assert manifest.counts["role"] == {"primary": primary.rows, "replay": replay.rows}
    assert sum(manifest.counts["family"].values()) == manifest.rows
    assert manifest.task_set_versions == {"rcm-edge": None, "rcm-base": None}
    assert primary.set_hash == small_edge.set_hash and primary.seed == 0


def test_another_seed_draws_another_replay_sample(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet
) -> None:
    def replayed(seed: int) -> list[str]:
        spec = DatasetSpec(name="d", primary=(small_edge,), replay=(small_base,), replay_ratio=0.1, seed=seed)
        return [r.meta.task_id for r in build_dataset(spec).rows if r.meta.role == "replay"]

    # a sample, not the whole buffer (which every seed would take alike)
    assert 0 < len(replayed(1)) < len(build_dataset(DatasetSpec(name="d", primary=(small_base,))).rows)
    assert replayed(1) != replayed(2)


def test_a_tampered_dataset_does_not_load(small_base: LoadedTaskSet, tmp_path: Path) -> None:
    folder = write_dataset(build_dataset(DatasetSpec(name="d", primary=(small_base,))), tmp_path)
    data = folder / "data.jsonl"
    data.write_bytes(data.read_bytes().replace(b"case worked", b"case wonked", 1))
    with pytest.raises(DatasetError, match="does not match its manifest"):
        load_dataset(folder)


def test_other_content_under_an_existing_name_is_refused(
    small_base: LoadedTaskSet, small_edge: LoadedTaskSet, tmp_path: Path
) -> None:
    write_dataset(build_dataset(DatasetSpec(name="d", primary=(small_base,))), tmp_path)
    with pytest.raises(DatasetError, match="already exists"):
        write_dataset(build_dataset(DatasetSpec(name="d", primary=(small_edge,))), tmp_path)


def test_a_ratio_outside_zero_to_one_is_a_clear_error(small_base: LoadedTaskSet) -> None:
    with pytest.raises(DatasetError, match="replay_ratio"):
        DatasetSpec(name="d", primary=(small_base,), replay_ratio=1.0)
