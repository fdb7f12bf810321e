"""Drives a toolwire-mcp server with the official MCP Python SDK (`mcp`, pinned in
requirements.txt) and prints what it saw as one JSON line.

    python client.py <server-url> <default|legacy>

`default` connects as the SDK does by default (`mode="auto"`: it probes `server/discover`
and settles on 2026-07-28 when the server speaks it); `legacy` forces the initialize
handshake, which the SDK sends at 2025-11-25. Either way it lists the tools and calls
`deploy` with `{"env": "prod"}`, accepting every elicitation it is asked and recording the
message. Set MCP_INTEROP_DEBUG=1 to log the SDK (and the HTTP exchange) to stderr.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext


async def run(url: str, mode: str) -> dict[str, Any]:
    asked: list[str] = []

    async def accept(
        _context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    sdk_mode = {"default": "auto", "legacy": "legacy"}[mode]
    async with Client(url, mode=sdk_mode, elicitation_callback=accept) as client:
        tools = await client.list_tools()
        result = await client.call_tool("deploy", {"env": "prod"})
        text = next((c.text for c in result.content if isinstance(c, types.TextContent)), None)
        return {
            "protocol": client.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "asked": asked,
            "result": {"isError": bool(result.is_error), "text": text},
        }


def describe(e: BaseException) -> str:
    """The exception, with the members of an exception group (anyio raises those) spelled out."""
    if isinstance(e, BaseExceptionGroup):
        return f"{type(e).__name__}: " + "; ".join(describe(inner) for inner in e.exceptions)
    return f"{type(e).__name__}: {e}"


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[2] not in ("default", "legacy"):
        print(json.dumps({"error": "usage: client.py <server-url> <default|legacy>"}))
        return 2
    if os.environ.get("MCP_INTEROP_DEBUG"):
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    try:
        seen = anyio.run(run, sys.argv[1], sys.argv[2])
    except Exception as e:  # noqa: BLE001 - any failure is the report, on stdout
        print(json.dumps({"error": describe(e)}))
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
