"""Temporal workflows (promotion with expert review, improvement loop): on the roadmap."""
