"""Which decoded events the archive accepts: written by a named producer, and next in their stream.

Three checks, before anything is archived (`Projector.handle`), in one or two queries per batch:
- **Authentication** (with a keyring): the event's signature verifies with a key of its own `source`
  (`bridge.audit.event_keys`); else `unsigned`, `unknown_key`, `foreign_source` or `bad_mac`.
- **Scope** (with a keyring): that source may write the event's type on its stream
  (`bridge.audit.scopes`: the bridge episodes, the detector edge cases, promotion task events,
  release adapter events); else `out_of_scope`, for a new stream and an archived one alike.
- **Continuity**: an event already archived (same source and id, same hash) is a redelivery and
  passes (the archive ignores it); the same id with other content is `id_taken`. A new event must
  be the next of its stream's archived head, from the same producer: its `source` the head's
  (`foreign_source`: one named producer writing into another's stream), `seq` one past it
  (`seq_taken` below, `seq_gap` above) and `prevhash` its hash (`prevhash_mismatch`). Events of one stream share a partition, so they
  arrive in order and the batch's own events advance the head.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.audit.event_keys import Keyring, KeyringFile, Refusal
from bridge.audit.scopes import SCOPES, Scopes
from bridge.store import Engine
from bridge.store.heads import archived_hashes, stream_heads
from bridge.streams.deadletter import RawMessage
from bridge.streams.decode import Decoded
from schemas.envelope import GENESIS_HASH

Item = tuple[Decoded, RawMessage]


@dataclass(frozen=True)
class Admitted:
    """A batch split into what may be archived and what goes to the dead-letter topic."""

    accepted: list[Item]
    refused: list[tuple[RawMessage, Refusal]]


class Admission:
    """The checks of this module over one archive, with an optional keyring (a file is read again
    when it changes)."""

    def __init__(
        self, engine: Engine, keyring: Keyring | KeyringFile | None, scopes: Scopes = SCOPES
    ) -> None:
        self.engine, self.keyring, self.scopes = engine, keyring, scopes

    def admit(self, items: Sequence[Item]) -> Admitted:
        """Split `items` (in consumption order) into accepted and refused."""
        refused: list[tuple[RawMessage, Refusal]] = []
        signed: list[Item] = []
        keyring = self.keyring.current() if isinstance(self.keyring, KeyringFile) else self.keyring
        for decoded, message in items:
            refusal = (
                None
                if keyring is None
                else keyring.verify(decoded.structured, message.headers, decoded.canonical or None)
                or self.scopes.check(decoded.structured)
            )
            if refusal is None:
                signed.append((decoded, message))
            else:
                refused.append((message, refusal))
        if not signed:
            return Admitted([], refused)
        heads = stream_heads(self.engine, (d.event.episodeid for d, _ in signed))
        # Only an event at or below its stream's head can be archived already: in the steady state
        # (no redelivery) nothing needs looking up.
        behind = [d.event for d, _ in signed if d.event.seq <= heads.get(d.event.episodeid, (-1, "", ""))[0]]
        known = archived_hashes(self.engine, ((e.source, e.id) for e in behind)) if behind else {}
        accepted: list[Item] = []
        for decoded, message in signed:
            refusal = _continuity(decoded, known, heads)
            if refusal is None:
                accepted.append((decoded, message))
            else:
                refused.append((message, refusal))
        return Admitted(accepted, refused)


def _continuity(
    decoded: Decoded, known: dict[tuple[str, str], str], heads: dict[str, tuple[int, str, str]]
) -> Refusal | None:
    """Check one event against the heads, advancing them when it is accepted."""
    event = decoded.event
    stored = known.get((event.source, event.id))
    if stored is not None:
        if stored == event.hash:
            return None  # a redelivery: the archive keeps the first copy and changes nothing
        return Refusal("id_taken", f"event {event.id} of {event.source} is archived with other content")
    head = heads.get(event.episodeid)
    next_seq, prevhash = (0, GENESIS_HASH) if head is None else (head[0] + 1, head[1])
    where = f"stream {event.episodeid}"
    if head is not None and head[2] != event.source:
        return Refusal("foreign_source", f"{where} is written by {head[2]!r}, not {event.source!r}")
    if event.seq < next_seq:
        return Refusal("seq_taken", f"{where} already has seq {event.seq} (its head is seq {next_seq - 1})")
    if event.seq > next_seq:
        return Refusal("seq_gap", f"{where} expects seq {next_seq} next, not {event.seq}")
    if event.prevhash != prevhash:
        return Refusal(
            "prevhash_mismatch", f"{where}: prevhash does not match the hash of seq {next_seq - 1}"
        )
    heads[event.episodeid] = (event.seq, event.hash, event.source)
    known[(event.source, event.id)] = event.hash
    return None
