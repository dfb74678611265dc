"""Audit beyond the hash chain: signed checkpoints of every stream's head, kept outside the archive,
so a truncated tail, a deleted stream or a rewritten (re-hashed) stream is named by the audit."""
