"""A real MCP client for the end-to-end tests: the official MCP Python SDK (`mcp` on PyPI).

Reads a plan as JSON on stdin, starts the server with `mcp.client.stdio.stdio_client` (or, given
a "url", connects to a running `localm mcp --http` with
`mcp.client.streamable_http.streamable_http_client`, sending the plan's "headers"), and over one
`ClientSession` runs initialize, tools/list, then each step in order. Prints one JSON
document on stdout with what the server answered; the Rust test (tests/tests/mcp.rs) asserts on
it. The server's stderr passes through to this process's stderr.

Plan:
  {"command": "/path/to/localm", "args": ["mcp", ...], "env": {"NAME": "value"},
   # or, over HTTP: "url": "http://127.0.0.1:PORT/mcp", "headers": {"Authorization": "Bearer …"},
   "steps": [{"call": "TOOL", "arguments": {...}},   # tools/call
             {"run": ["/path/to/localm", ...]}]}      # a command between calls (e.g. a mode switch)
Output:
  {"initialize": {"protocol_version", "server": {"name", "version"}, "instructions",
                  "tools_capability": bool},
   "tools": [{"name", "description", "input_schema", "output_schema", "annotations"}],
   "steps": [{"is_error", "text", "structured"}        # a tool result
             | {"protocol_error": str, "code": int}    # a JSON-RPC error (e.g. unknown tool)
             | {"exit": int}]}                         # a run step
  Over HTTP, a session the server refuses prints {"refused": str} (what the client raised).
"""

import json
import subprocess
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return None if model is None else model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(plan):
    if "url" in plan:
        try:
            with anyio.fail_after(60):
                async with create_mcp_http_client(headers=plan.get("headers")) as client:
                    async with streamable_http_client(plan["url"], http_client=client) as (read, write):
                        out = await run_session(read, write, plan)
        except Exception as e:  # the server refused the session (or the client gave up)
            out = {"refused": repr(e)}
    else:
        server = StdioServerParameters(command=plan["command"], args=plan["args"], env=plan.get("env") or {})
        async with stdio_client(server) as (read, write):
            out = await run_session(read, write, plan)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


async def run_session(read, write, plan):
    out = {"steps": []}
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        out["initialize"] = {
            "protocol_version": init.protocol_version,
            "server": {"name": init.server_info.name, "version": init.server_info.version},
            "instructions": init.instructions,
            "tools_capability": init.capabilities.tools is not None,
        }
        listed = await session.list_tools()
        out["tools"] = [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": t.input_schema,
                "output_schema": t.output_schema,
                "annotations": dump(t.annotations),
            }
            for t in listed.tools
        ]
        for step in plan.get("steps", []):
            if "run" in step:
                # Its output goes to stderr: stdout carries only this client's answer.
                done = subprocess.run(step["run"], stdin=subprocess.DEVNULL, stdout=sys.stderr, check=False)
                out["steps"].append({"exit": done.returncode})
                continue
            try:
                # call_tool also checks a successful result against the tool's output schema.
                result = await session.call_tool(step["call"], step.get("arguments"))
            except MCPError as e:
                out["steps"].append({"protocol_error": str(e), "code": e.code})
                continue
            texts = [c.text for c in result.content if c.type == "text"]
            out["steps"].append(
                {
                    "is_error": bool(result.is_error),
                    "text": "\n".join(texts),
                    "structured": result.structured_content,
                }
            )
    return out


if __name__ == "__main__":
    anyio.run(main, json.load(sys.stdin))
