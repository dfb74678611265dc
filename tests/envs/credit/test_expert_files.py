"""The expert cases written as data: how many, each with its source, many with more than one
acceptable decision, and a broken file refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.credit.expert import load_expert_cases
from envs.credit.expert.data import CaseFileError, load_case, load_case_files


def test_thirty_or_more_case_files_each_with_a_source_and_ten_with_two_acceptable_decisions() -> None:
    files = load_case_files()
    assert len(files) >= 30
    assert all(c.source.strip() for c in files)
    assert sum(len(c.right.classes) > 1 for c in files) >= 10
    assert all(len(c.golds) == len(c.right.classes) and c.wrong_moves for c in files)


def test_the_case_files_join_the_expert_set_with_unique_ids() -> None:
    ids = [c.id for c in load_expert_cases()]
    assert len(ids) == len(set(ids)) and {c.id for c in load_case_files()} <= set(ids)


def test_a_case_file_missing_its_answer_is_refused_by_name(tmp_path: Path) -> None:
    broken = tmp_path / "z99-broken.json"
    broken.write_text('{"id": "z99", "package_id": "PKG-Z", "title": "t"}')
    with pytest.raises(CaseFileError, match=r"z99-broken\.json"):
        load_case(broken)
