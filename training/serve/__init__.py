"""The OpenAI-compatible policy server (`training.serve.app`); fastapi is imported only there."""
