"""Run one job per task, in this process or in `spawn`ed workers, results in task order."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import TypeVar

from schemas.tasks import Task

R = TypeVar("R")

Progress = Callable[[int, int], None]
"""Called in the parent as (tasks done, tasks in all) after each task."""


def per_task(
    job: Callable[[Task], R],
    tasks: Sequence[Task],
    *,
    workers: int = 1,
    progress: Progress | None = None,
) -> list[R]:
    """`job(task)` for every task; with `workers > 1` in spawned processes (`job` must then be
    picklable: a module-level function or a `functools.partial` of one)."""
    if workers < 1:
        raise ValueError("workers must be at least 1")
    results: list[R | None] = [None] * len(tasks)
    if workers == 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            results[index] = job(task)
            if progress:
                progress(index + 1, len(tasks))
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=context) as pool:
            futures: dict[Future[R], int] = {pool.submit(job, task): i for i, task in enumerate(tasks)}
            for done, future in enumerate(as_completed(futures), start=1):
                results[futures[future]] = future.result()
                if progress:
                    progress(done, len(tasks))
    return [r for r in results if r is not None]
