"""Promotion: a production edge case becomes a reviewed, validated environment task (docs/promotion.md)."""
