"""Temporal workflows, activities and workers (the only package that imports `temporalio`).

`workflows.promotion`: production edge cases → reviewed, validated tasks (docs/promotion.md).
"""
