"""The policy server's test keys and the headers that carry them."""

from __future__ import annotations

from training.serve.access import AccessKeys

KEYS = AccessKeys(serving="serving-key-for-tests-0001", release="release-key-for-tests-0001")
SERVING = {"Authorization": f"Bearer {KEYS.serving}"}
RELEASE = {"Authorization": f"Bearer {KEYS.release}"}
