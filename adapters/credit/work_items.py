"""Which work items the credit domain can work: the check the bridge runs before it starts an episode.

A credit work item is the deal pipeline's hand-off of one package: `kind` `credit_package` and
`payload.package_id`. Anything else would only fail later, inside a policy or a tool, so it is
refused up front with the field that is wrong.
"""

from __future__ import annotations

from schemas.tasks import WorkItem

DOMAIN = "credit"
PACKAGE_KIND = "credit_package"


def work_item_problem(item: WorkItem) -> str | None:
    """Why the credit domain cannot work `item`, naming the field; None when it can."""
    if item.domain != DOMAIN:
        return f"this bridge works domain {DOMAIN!r} only, not domain {item.domain!r}"
    if item.kind != PACKAGE_KIND:
        return f"kind {item.kind!r} is not a credit work item kind; expected {PACKAGE_KIND}"
    package_id = item.payload.get("package_id")
    if not isinstance(package_id, str) or not package_id.strip():
        return "payload.package_id must be a non-empty string (the package's id in the deal system)"
    return None
