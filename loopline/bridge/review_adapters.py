"""The console's adapters: the release registry's records (`training.release.store`) as the plain
rows the bridge's console lists, read on each call."""

from __future__ import annotations

from collections.abc import Sequence

from bridge.api.review_console import AdapterRow, AdapterSource


def release_adapters(db_url: str) -> AdapterSource:
    """Reads, on each call, the adapters in the release store at `db_url`, latest change first."""
    from training.release.store import SqlReleaseStore

    store = SqlReleaseStore(db_url)
    store.create_schema()

    def read() -> Sequence[AdapterRow]:
        rows = [
            AdapterRow(
                adapter_id=r.adapter_id,
                served_name=r.served_name,
                state=r.state,
                traffic_share=r.traffic_share,
                gate="passed" if r.gate_passed else ("forced" if r.forced else "stopped"),
                parent=r.parent_adapter_id,
                base_model=r.base_model,
                updated_at=r.updated_at,
            )
            for r in store.adapters()
        ]
        return sorted(rows, key=lambda r: r.updated_at, reverse=True)

    return read
