"""Learning from production: PHI-safe datasets, policy models, LoRA training (torch + peft),
evaluation and the gate. See docs/training.md.

Only `training` imports torch, peft and transformers (an import-linter contract keeps it so), and
only inside the modules that need them, so `training.data` stays light.
"""
