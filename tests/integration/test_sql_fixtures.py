"""The SQL fixtures hand out working, empty databases on SQLite and on a throwaway Postgres."""

from __future__ import annotations

import sqlalchemy as sa


def test_sql_url_gives_an_empty_database_that_takes_writes(sql_url: str) -> None:
    engine = sa.create_engine(sql_url)
    try:
        with engine.begin() as conn:
            assert sa.inspect(conn).get_table_names() == []
            conn.execute(sa.text("CREATE TABLE probe (id INTEGER PRIMARY KEY, note TEXT)"))
            conn.execute(sa.text("INSERT INTO probe (id, note) VALUES (1, 'written')"))
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT note FROM probe")).scalar_one() == "written"
    finally:
        engine.dispose()


def test_postgres_url_is_a_postgres_database(postgres_url: str) -> None:
    engine = sa.create_engine(postgres_url)
    try:
        with engine.connect() as conn:
            assert "PostgreSQL" in conn.execute(sa.text("SELECT version()")).scalar_one()
    finally:
        engine.dispose()
