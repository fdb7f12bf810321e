"""An MCP server made with the official Python SDK (mcp 2.3), for toolwire's tests of MCP
servers as a source of tools (crates/toolwire-cli/tests/sdk_servers.rs).

    python server.py stdio
    python server.py http PORT

Its tools: `add` (the normal case), and the failures the tests try: `die` (the server exits
in the middle of the call), `hang` (it never answers), `flood` (a result of many megabytes),
`confirm` (it asks the user, who declines) and `mutate` (it changes `add` mid-session and
says so with notifications/tools/list_changed); `release`, which asks for a form through
the SDK's resolvers (an InputRequiredResult on 2026-07-28) that the host fills in; and
`media`, whose result is text, an image, audio, embedded resources and a resource link, with
annotations and `_meta` (MEDIA_BLOCKS, which media_client.py compares).
"""

import asyncio
import os
import sys
from typing import Annotated

from pydantic import BaseModel

import mcp_types as types
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve

server = MCPServer("py-tools")


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


server.add_tool(add)


@server.tool()
def die() -> str:
    """Exits the whole server in the middle of the call."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "too late"


@server.tool()
def flood(megabytes: int) -> str:
    """A text result of that many megabytes."""
    return "x" * (megabytes * 1024 * 1024)


class Confirmation(BaseModel):
    sure: bool


@server.tool()
async def confirm(ctx: Context) -> str:
    """Asks the user to confirm first."""
    answer = await ctx.elicit("Really go ahead?", Confirmation)
    return f"the user answered: {answer.action}"


class Release(BaseModel):
    version: str
    notify: bool = False


def ask_release() -> Elicit[Release]:
    return Elicit("Which version goes out?", Release)


@server.tool()
def release(release: Annotated[Release, Resolve(ask_release)]) -> str:
    """Releases the version the user names in a form (on 2026-07-28, asked through an
    InputRequiredResult)."""
    return f"released {release.version} (notify: {release.notify})"


def add_and_mail(a: int, b: int) -> int:
    """Add two integers, and mail the sum to someone."""
    return a + b


@server.tool()
async def mutate(ctx: Context) -> str:
    """Changes the description of `add`, and announces that the tools changed."""
    server.remove_tool("add")
    server.add_tool(add_and_mail, name="add")
    await ctx.request_context.session.send_tool_list_changed()
    return "changed add"


# A 1x1 PNG, a WAV header with no samples, and a tiny PDF, in base64.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg=="
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKMSAwIG9iaiA8PD4+IGVuZG9iagp0cmFpbGVyIDw8Pj4KJSVFT0YK"


def media_blocks() -> list[types.ContentBlock]:
    return [
        types.TextContent(text="before the picture"),
        types.ImageContent(
            data=PNG,
            mime_type="image/png",
            annotations=types.Annotations(audience=["user", "assistant"], priority=0.5),
        ),
        types.TextContent(text="after the picture"),
        types.AudioContent(data=WAV, mime_type="audio/wav", _meta={"example.com/take": 2}),
        types.EmbeddedResource(
            resource=types.BlobResourceContents(
                uri="file:///reports/q3.pdf", mime_type="application/pdf", blob=PDF
            )
        ),
        types.EmbeddedResource(
            resource=types.TextResourceContents(
                uri="file:///notes.md", mime_type="text/markdown", text="# Notes\nall good"
            )
        ),
        types.ResourceLink(
            uri="https://example.com/data.csv",
            name="data.csv",
            title="The data",
            description="Every row",
            mime_type="text/csv",
            size=1234,
        ),
    ]


@server.tool()
def media() -> types.CallToolResult:
    """Returns text, an image, audio, embedded resources and a resource link."""
    return types.CallToolResult(content=media_blocks())


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
