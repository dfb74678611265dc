"""Fixtures for the runtime tests: a real OpenAI-compatible HTTP peer, a toy toolbox, a fixed clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from adapters import Toolbox
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from schemas import WorkItem
from tests.bridge.runtime.captured import CapturedEpisodes
from tests.bridge.runtime.doubles import FakeClock, FixedWallClock, SequentialIds
from tests.bridge.runtime.fake_openai_server import FakeOpenAIServer
from tests.bridge.runtime.toy_tools import TOY_ARGS_MODELS, ToyBackend, toy_toolbox


@pytest.fixture(scope="session")
def _openai_server() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer().start()
    yield server
    server.stop()


@pytest.fixture
def openai_server(_openai_server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The shared fake server with an empty script; a test must use up what it scripts."""
    _openai_server.reset()
    yield _openai_server
    leftover = _openai_server.pending
    _openai_server.reset()
    assert leftover == 0, f"{leftover} scripted replies were never requested"


@pytest.fixture
def toy_backend() -> ToyBackend:
    return ToyBackend()


@pytest.fixture
def toolbox(toy_backend: ToyBackend) -> Toolbox:
    return toy_toolbox(toy_backend)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# A fixed master key, so PHI tokens are the same in every run (and in both halves of a rollout pair).
MASTER_KEY = bytes.fromhex("5be1c0de" * 8)


@pytest.fixture(scope="session")
def redactor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redactor]:
    keys = PhiKeys.from_master(MASTER_KEY)
    vault = PhiVault.open(f"sqlite:///{tmp_path_factory.mktemp('vault') / 'vault.db'}", keys)
    yield Redactor(PhiTokenizer(keys, vault), "clinic-a")
    vault.close()


@pytest.fixture
def make_recorders(redactor: Redactor) -> Callable[[], CapturedEpisodes]:
    """Fresh recorder factories with deterministic event ids and times."""

    def make() -> CapturedEpisodes:
        return CapturedEpisodes(
            redactor, args_models=TOY_ARGS_MODELS, clock=FixedWallClock(), id_factory=SequentialIds("evt")
        )

    return make


@pytest.fixture
def recorders(make_recorders: Callable[[], CapturedEpisodes]) -> CapturedEpisodes:
    """Every event of every episode the test runs, recorded by bridge.recording's EpisodeRecorder."""
    return make_recorders()


WORK_ITEM = WorkItem(
    domain="rcm",
    kind="denial",
    item_id="C-1",
    instructions="Work this denied claim to resolution.",
    payload={"claim_id": "C-1", "carc": "45", "group": "CO", "patient_name": "Ada Lovelace"},
)


@pytest.fixture
def work_item() -> WorkItem:
    return WORK_ITEM
