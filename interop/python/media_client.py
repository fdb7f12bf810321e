"""Calls one tool with the official MCP Python SDK (pinned in requirements.txt) and prints
the content blocks of its result, as the SDK read them, as one JSON line.

    python media_client.py <server-url> <default|legacy> <tool>

toolwire's tests call the Python server's `media` tool directly and through `toolwire serve`,
and compare the two lists block by block (crates/toolwire-cli/tests/media.rs).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import Client


async def run(url: str, mode: str, tool: str) -> dict[str, Any]:
    sdk_mode = {"default": "auto", "legacy": "legacy"}[mode]
    async with Client(url, mode=sdk_mode) as client:
        result = await client.call_tool(tool, {})
        blocks = [block.model_dump(by_alias=True, exclude_none=True) for block in result.content]
        return {"protocol": client.protocol_version, "isError": bool(result.is_error), "content": blocks}


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[2] not in ("default", "legacy"):
        print(json.dumps({"error": "usage: media_client.py <server-url> <default|legacy> <tool>"}))
        return 2
    try:
        seen = anyio.run(run, sys.argv[1], sys.argv[2], sys.argv[3])
    except Exception as e:  # noqa: BLE001 - any failure is the report, on stdout
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
