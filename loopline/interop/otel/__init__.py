"""Archived episodes as OpenTelemetry traces with the GenAI semantic conventions, sent over OTLP/HTTP
from the archive, never from the agent's path: `genai` pins the attribute names, `spans` plans
one trace per episode (pure), `export` sends it with the SDK's OTLP exporter."""
