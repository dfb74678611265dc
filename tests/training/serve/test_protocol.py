"""What OpenAI's chat API defines is accepted and nothing else: the reason names what is wrong."""

from __future__ import annotations

from training.serve.protocol import request_problem


def test_a_request_the_bridge_sends_is_accepted() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": None, "tool_calls": []},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        ],
        "tools": [],
        "tool_choice": "auto",
        "temperature": 0.0,
        "top_p": 1.0,
        "max_tokens": 10,
        "seed": 1,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert request_problem(body) is None


def test_an_unknown_role_is_named_with_its_position() -> None:
    problem = request_problem({"model": "m", "messages": [{"role": "user"}, {"role": "wizard"}]})
    assert problem is not None and problem.startswith("messages[1].role 'wizard'")


def test_every_unknown_parameter_is_named() -> None:
    assert request_problem({"model": "m", "messages": [], "b": 1, "a": 2}) == (
        "Unrecognized request arguments supplied: a, b"
    )


def test_a_body_that_is_not_an_object_is_refused() -> None:
    assert request_problem([1]) == "the request body is a JSON list, not an object"
