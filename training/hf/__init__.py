"""The production kind of policy: any Hugging Face causal LM with a tool-capable chat template,
loaded from a local path (nothing downloads), trained with the same datasets and LoRA code."""
