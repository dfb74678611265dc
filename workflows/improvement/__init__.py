"""The improvement cycle on Temporal: dataset → LoRA training (on the `gpu` task queue) → paired
evaluation → gate → release registry → canary → the sequential test's decision (docs/release.md)."""
