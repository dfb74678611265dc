"""The OpenAI rendering of a tool is built once per argument model and handed out as a copy."""

from __future__ import annotations

from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from adapters.spec import strict_schema


def test_openai_tool_matches_a_fresh_rendering_of_the_schema() -> None:
    spec = RCM_TOOLS_BY_NAME["submit_replacement_claim"]
    assert spec.openai_tool()["function"]["parameters"] == strict_schema(spec.parameters_schema())


def test_changing_a_rendered_tool_does_not_change_the_next_rendering() -> None:
    spec = RCM_TOOLS_BY_NAME["post_write_off"]
    first = spec.openai_tool()
    first["function"]["parameters"]["properties"].clear()
    first["function"]["parameters"]["required"].append("bogus")
    again = spec.openai_tool()["function"]["parameters"]
    assert "amount" in again["properties"] and "bogus" not in again["required"]
