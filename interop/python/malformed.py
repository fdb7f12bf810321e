"""A hand-written MCP server (2025-11-25, over stdio, standard library only) whose replies to
`tools/call` are malformed on purpose, for toolwire's tests of MCP servers as a source of
tools (crates/toolwire-cli/tests/sdk_servers.rs). No SDK would send these, which is why it
is not made with one.

Its tools: `add` answers properly; `wrong_shape` answers with a result whose `content` is not
a list and whose `isError` is not a boolean; `not_json` answers with a line that is not
JSON; `huge_text` answers with one text block of 3 MiB; `bad_image` answers with an image
whose base64 does not decode.
"""

import json
import sys

TOOLS = [
    {"name": name, "description": description, "inputSchema": {"type": "object"}}
    for name, description in [
        ("add", "Adds one and two, properly."),
        ("wrong_shape", "Answers with a result of the wrong shape."),
        ("not_json", "Answers with a line that is not JSON."),
        ("huge_text", "Answers with a text of 3 MiB."),
        ("bad_image", "Answers with an image whose data is not base64."),
    ]
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id, value):
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def call(request_id, name):
    if name == "add":
        result(request_id, {"content": [{"type": "text", "text": "3"}]})
    elif name == "wrong_shape":
        result(request_id, {"content": "not a list", "isError": "maybe"})
    elif name == "not_json":
        sys.stdout.write('{"jsonrpc": "2.0", "id": %s, "result": {"content": [\n' % json.dumps(request_id))
        sys.stdout.flush()
    elif name == "bad_image":
        blocks = [{"type": "text", "text": "a picture:"},
                  {"type": "image", "mimeType": "image/png", "data": "%%% not base64 %%%"}]
        result(request_id, {"content": blocks})
    elif name == "huge_text":
        text = "x" * (3 * 1024 * 1024)
        result(request_id, {"content": [{"type": "text", "text": text}]})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "unknown tool"}})


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method, request_id = request.get("method"), request.get("id")
    if request_id is None:
        continue  # a notification
    if method == "initialize":
        result(request_id, {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "malformed", "version": "1.0"},
        })
    elif method == "tools/list":
        result(request_id, {"tools": TOOLS})
    elif method == "tools/call":
        call(request_id, request.get("params", {}).get("name"))
    elif method == "ping":
        result(request_id, {})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no such method"}})
