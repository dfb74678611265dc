"""Refuse request bodies whose JSON escapes a lone UTF-16 surrogate (`"\\ud800"`), with a 400.

Python's `json` turns such an escape into a `str` that cannot be written as UTF-8, so it gets
through validation and fails later, wherever the text is stored or echoed: a 500, or a stored
value that breaks every later read. Valid JSON text never needs one (a surrogate *pair*, as
`json.dumps` writes an emoji, is fine). The check runs on the whole body once it is in, before the app parses it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# An escape is one when an even number of backslashes precede its own (`\\ud800` is the text "\ud800").
_ESCAPE = rb"(?:(?<=[^\\])|^)(?:\\\\)*\\u"
_HIGH, _LOW = rb"[dD][89abAB][0-9a-fA-F]{2}", rb"[dD][c-fC-F][0-9a-fA-F]{2}"
LONE_SURROGATE = re.compile(
    _ESCAPE + _HIGH + rb"(?!\\u" + _LOW + rb")" + rb"|" + rb"(?<!\\u" + _HIGH + rb")" + _ESCAPE + _LOW
)
REASON = "the body escapes a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text; send valid Unicode"


def has_lone_surrogate(body: bytes) -> bool:
    """Whether a JSON text escapes a surrogate that is not half of a pair."""
    return LONE_SURROGATE.search(body) is not None


class RefuseLoneSurrogates:
    """ASGI middleware: a body with a lone surrogate escape is answered 400 with the reason."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []

        async def checked() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                parts.append(message.get("body", b""))
                # The app parses once the last chunk is in; the whole body is checked then. (The
                # bridge's body limit, outside this middleware, bounds what is kept meanwhile.)
                if not message.get("more_body", False) and has_lone_surrogate(b"".join(parts)):
                    raise HTTPException(400, REASON)
            return message

        await self.app(scope, checked, send)
