"""LoRA training, datasets, evaluation and policy serving (torch + peft): on the roadmap."""
