"""The GenAI semantic-convention names these traces use, pinned to one release.

Pinned to OpenTelemetry semantic conventions **v1.44.0** (the GenAI attributes as the
`opentelemetry-semantic-conventions` 0.66b2 package publishes them in
`opentelemetry.semconv._incubating.attributes.gen_ai_attributes`); every span carries the release's
schema URL. The names are written out here rather than imported from the package's `_incubating`
module, which may rename them in any release; a test holds them equal to that module's.
"""

from __future__ import annotations

from typing import Final

SEMCONV_VERSION: Final = "1.44.0"
SCHEMA_URL: Final = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"

OPERATION_NAME: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
AGENT_NAME: Final = "gen_ai.agent.name"
AGENT_ID: Final = "gen_ai.agent.id"
AGENT_VERSION: Final = "gen_ai.agent.version"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
REQUEST_MODEL: Final = "gen_ai.request.model"
REQUEST_TEMPERATURE: Final = "gen_ai.request.temperature"
REQUEST_TOP_P: Final = "gen_ai.request.top_p"
REQUEST_MAX_TOKENS: Final = "gen_ai.request.max_tokens"
REQUEST_SEED: Final = "gen_ai.request.seed"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_TYPE: Final = "gen_ai.tool.type"
EVALUATION_NAME: Final = "gen_ai.evaluation.name"
EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
ERROR_TYPE: Final = "error.type"

INVOKE_AGENT: Final = "invoke_agent"
CHAT: Final = "chat"
EXECUTE_TOOL: Final = "execute_tool"
EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"

PROVIDER: Final = "loopline"
"""`gen_ai.provider.name` of our policies (an OpenAI-compatible server Loopline runs: a custom value,
as the conventions allow for providers they do not list)."""
