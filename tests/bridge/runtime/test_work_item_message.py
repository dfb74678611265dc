"""The work-item message can be read back into the work item it was made from."""

from __future__ import annotations

from adapters.chat import read_work_item_message, work_item_message
from schemas import WorkItem


def test_a_work_item_message_reads_back_to_the_same_item() -> None:
    item = WorkItem(
        domain="rcm",
        kind="denial",
        item_id="CLM-1001",
        instructions="Work this denied claim.\n\nIt is near its appeal deadline.",
        payload={"claim_id": "CLM-1001", "nested": {"codes": ["CO-16", "N290"]}, "amount": 120.5},
    )
    assert read_work_item_message(work_item_message(item)) == item


def test_other_messages_are_not_work_items() -> None:
    assert read_work_item_message({"role": "assistant", "content": "Work item X (a / b):\n{}"}) is None
    assert read_work_item_message({"role": "user", "content": "hello"}) is None
    assert (
        read_work_item_message({"role": "user", "content": "x\n\nWork item A (rcm / denial):\n[1]"}) is None
    )
    assert (
        read_work_item_message({"role": "user", "content": "x\n\nWork item A (rcm / denial):\n{bad"}) is None
    )
