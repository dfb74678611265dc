"""The PHI vault: raw values behind their tokens, encrypted at rest, revealed only to operators
and reviewers (the review page asks for one document's text at a time, on a reviewer's request).

It is a separate store from the outbox on purpose: the outbox is shipped to Kafka and read by
everyone downstream; the vault never leaves the tenant's trust boundary and may sit in a database
with its own access rights and backups. Each value is sealed with AES-256-GCM under a key derived
from the master key, with the tenant and token as associated data, so a ciphertext copied onto
another row does not decrypt. Every reveal, granted or refused, is written to an audit table.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    select,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from bridge.phi.keys import PhiKeys

OPERATOR_ROLE = "operator"
"""Operations: any value, through the operator API."""
REVIEWER_ROLE = "reviewer"
"""Expert review: the review page reveals a document's text a reviewer asks to read."""
REVEAL_ROLES = frozenset({OPERATOR_ROLE, REVIEWER_ROLE})
"""The roles `reveal` answers; every other is refused (and audited)."""

_NONCE_BYTES = 12
_KNOWN_LIMIT = 100_000

metadata = MetaData()
vault_table = Table(
    "phi_vault",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("token", String(64), primary_key=True),
    Column("key_id", String(32), nullable=False),
    Column("ciphertext", LargeBinary, nullable=False),
    Column("created_at", Float, nullable=False),
)
reveals_table = Table(
    "phi_reveals",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=True),
    Column("token", String(64), nullable=False),
    Column("role", String(64), nullable=False),
    Column("actor", String(128), nullable=True),
    Column("granted", Boolean, nullable=False),
    Column("at", Float, nullable=False),
)


class VaultUnavailable(RuntimeError):
    """A PHI value cannot be stored (a full disk, an I/O error): no token may reach an event whose
    value is lost, so the event is not recorded either; the bridge answers 503."""


class PhiVaultError(RuntimeError):
    """A stored value cannot be revealed (wrong key, tampered row, ambiguous token)."""


class UnknownToken(KeyError):
    """No value is stored under this token."""


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def vault_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets WAL, and `sqlite://` (memory) one shared connection."""
    if url in ("sqlite://", "sqlite:///:memory:"):
        return create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


class PhiVault:
    """Encrypted token → raw value store with operator-only reveal. Safe for many threads."""

    def __init__(self, engine: Engine, keys: PhiKeys) -> None:
        self._engine = engine
        self._keys = keys
        self._aead = AESGCM(keys.vault_key)
        # Tokens this process already stored: a repeat value (the same patient in every call of
        # an episode) then costs a set lookup instead of a database round trip.
        self._known: set[tuple[str, str]] = set()
        self._write_lock = threading.Lock()
        # A first sighting of a value is stored on the agent's path: plain driver SQL skips the
        # compilation a Core insert pays each time. ON CONFLICT works on both engines.
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._insert_sql = (
            f"INSERT INTO phi_vault (tenant, token, key_id, ciphertext, created_at) VALUES ({mark}, {mark}, "
            f"{mark}, {mark}, {mark}) ON CONFLICT (tenant, token) DO NOTHING"
        )
        metadata.create_all(engine)
        database = engine.url.database
        sqlite_file = engine.dialect.name == "sqlite" and database not in (None, "", ":memory:")
        # SQLite has no server to drop an idle connection, so the writer keeps one: a pool
        # checkout per first sighting costs more than the insert itself.
        self._raw_writer = engine.raw_connection() if sqlite_file else None

    @classmethod
    def open(cls, url: str, keys: PhiKeys) -> PhiVault:
        """A vault on the database at `url` (SQLAlchemy URL), tables created if missing."""
        return cls(vault_engine(url), keys)

    def put_many(self, tenant: str, values: Mapping[str, Any]) -> None:
        """Store raw JSON values under their tokens; tokens already stored are left as they are."""
        fresh = {token: raw for token, raw in values.items() if (tenant, token) not in self._known}
        if not fresh:
            return
        now = time.time()
        key_id = self._keys.key_id
        rows = [(tenant, token, key_id, self._seal(tenant, token, raw), now) for token, raw in fresh.items()]
        # One writer at a time inside the process: SQLite would otherwise make the losers sleep
        # in its busy handler (milliseconds) instead of waiting microseconds for this lock.
        with self._write_lock:
            try:
                self._insert(rows)
            except (SQLAlchemyError, sqlite3.Error) as exc:  # no token may be used whose value is lost
                raise VaultUnavailable(f"the PHI vault cannot store values: {exc}") from exc
        if len(self._known) > _KNOWN_LIMIT:
            self._known.clear()
        self._known.update((tenant, token) for token in fresh)

    def reveal(self, token: str, role: str, *, tenant: str | None = None, actor: str | None = None) -> Any:
        """The raw value behind `token`, for the operator and reviewer roles only (PermissionError
        otherwise); every attempt is audited with `actor`.

        `tenant` narrows the lookup; without it the token must be unique across tenants.
        """
        granted = role in REVEAL_ROLES
        self._audit(tenant, token, role, actor, granted)
        if not granted:
            raise PermissionError(
                f"role {role!r} may not reveal PHI; only {' and '.join(sorted(REVEAL_ROLES))} may"
            )
        query = select(vault_table).where(vault_table.c.token == token)
        if tenant is not None:
            query = query.where(vault_table.c.tenant == tenant)
        with self._engine.connect() as conn:
            rows = conn.execute(query).all()
        if not rows:
            raise UnknownToken(token)
        if len(rows) > 1:
            raise PhiVaultError(f"token {token} exists for several tenants; pass tenant=")
        row = rows[0]
        if row.key_id != self._keys.key_id:
            raise PhiVaultError(
                f"token {token} was sealed with key {row.key_id}; this process holds key {self._keys.key_id}"
            )
        return self._open(row.tenant, token, row.ciphertext)

    def values_for_scrubbing(self, tenant: str, tokens: Iterable[str]) -> list[Any]:
        """The raw values behind `tokens` in `tenant` (unknown ones skipped), for this process to
        find them again in free text (`known_from_events`). Nothing leaves the process, so this
        is no reveal and is not in the reveal audit; the API never exposes it."""
        wanted = sorted(set(tokens))
        values: list[Any] = []
        with self._engine.connect() as conn:
            for start in range(0, len(wanted), 500):
                query = select(vault_table).where(
                    vault_table.c.tenant == tenant, vault_table.c.token.in_(wanted[start : start + 500])
                )
                for row in conn.execute(query):
                    if row.key_id == self._keys.key_id:
                        values.append(self._open(row.tenant, row.token, row.ciphertext))
        return values

    def close(self) -> None:
        """Release the database connections."""
        if self._raw_writer is not None:
            self._raw_writer.close()
        self._engine.dispose()

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        if self._raw_writer is None:
            with self._engine.begin() as conn:
                conn.exec_driver_sql(self._insert_sql, rows)
            return
        cursor = self._raw_writer.cursor()
        try:
            cursor.executemany(self._insert_sql, rows)
            self._raw_writer.commit()
        except BaseException:
            self._raw_writer.rollback()
            raise
        finally:
            cursor.close()

    def _audit(self, tenant: str | None, token: str, role: str, actor: str | None, granted: bool) -> None:
        row = {
            "tenant": tenant,
            "token": token,
            "role": role,
            "actor": actor,
            "granted": granted,
            "at": time.time(),
        }
        with self._write_lock, self._engine.begin() as conn:
            conn.execute(reveals_table.insert(), row)

    def _aad(self, tenant: str, token: str) -> bytes:
        return f"loopline-phi\x00{tenant}\x00{token}".encode()

    def _seal(self, tenant: str, token: str, raw: Any) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        plaintext = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        return nonce + self._aead.encrypt(nonce, plaintext, self._aad(tenant, token))

    def _open(self, tenant: str, token: str, blob: bytes) -> Any:
        try:
            plaintext = self._aead.decrypt(blob[:_NONCE_BYTES], blob[_NONCE_BYTES:], self._aad(tenant, token))
        except InvalidTag:
            raise PhiVaultError(
                f"the stored value of {token} fails authentication (tampered or moved)"
            ) from None
        return json.loads(plaintext)
