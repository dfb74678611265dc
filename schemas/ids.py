"""Identifiers: UUIDv7 (RFC 9562), time-ordered so event ids sort by creation time.

`new_id` is the one generator: every event of the agent's hot path takes one, so it draws its random
bits from a per-thread pool of OS randomness (refilled after a fork, so a child never repeats its
parent's ids). Libraries that push the timestamp forward to keep ids strictly monotonic within a
millisecond drift ahead of the clock at event rates, which an id's timestamp must not.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

_RAND_B = (1 << 62) - 1


class _RandomPool(threading.local):
    """Random bytes from the OS, fetched 2.5 KB at a time per thread (one syscall per 256 ids)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.at = 0

    def take10(self) -> bytes:
        at = self.at
        if at + 10 > len(self.buffer):
            self.buffer, at = os.urandom(2560), 0
        self.at = at + 10
        return self.buffer[at : at + 10]


_pool = _RandomPool()


def _fresh_pool_after_fork() -> None:
    global _pool
    _pool = _RandomPool()  # a child must never hand out its parent's next random bits


os.register_at_fork(after_in_child=_fresh_pool_after_fork)


def new_id() -> str:
    """A fresh UUIDv7 in its canonical string form: 48 bits of Unix milliseconds, version 7, the
    RFC 9562 variant, 74 random bits (§5.7)."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(_pool.take10(), "big")
    value = (ms << 80) | (0x7 << 76) | (((rand >> 62) & 0xFFF) << 64) | (0b10 << 62) | (rand & _RAND_B)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def uuid7_time_ms(value: str | uuid.UUID) -> int:
    """The Unix-millisecond timestamp a UUIDv7 was made at."""
    u = value if isinstance(value, uuid.UUID) else uuid.UUID(value)
    if u.version != 7:
        raise ValueError(f"not a UUIDv7: {u}")
    return u.int >> 80
