"""Credit sandbox settings: the common ones (`adapters.sandbox.SandboxBase`) and the documents'
extraction damage."""

from __future__ import annotations

from adapters.credit.documents.noise import NoiseConfig
from adapters.faults import FaultConfig, FaultRule
from adapters.sandbox.config import SandboxBase


class SandboxConfig(SandboxBase):
    """Everything `create_app` needs."""

    document_noise: NoiseConfig | None = None
    """OCR damage in the documents served for PDF-table periods (and text cells of workbooks);
    none by default, so the documents read back exactly."""


__all__ = ["FaultConfig", "FaultRule", "SandboxConfig"]
