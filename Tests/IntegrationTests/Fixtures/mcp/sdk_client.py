"""The official MCP Python SDK's client driving an MCP server, for authbroker's tests and bench.

    sdk_client.py stdio COMMAND ARG...     the server is `authctl mcp …` over stdio
    sdk_client.py http URL TOKEN           the server directly over Streamable HTTP (bench baseline)

Reads steps from stdin, one per line, and prints one JSON line per step on stdout:
    tools                 → {"tools": [names]}
    call NAME JSON        → {"text": "...", "is_error": false} or {"error": "..."}
    bench NAME JSON N     → {"seconds": [per-call wall times]}
    wait                  → {"ok": true} (after the test said so on stdin: a pause point)
    notifications         → {"tool_list_changed": N} once N ≥ 1 arrived (waiting up to 60 s), N may be 0
At the end of stdin the session ends (the transport closes; the bridge deletes the session).
"""
import asyncio
import json
import sys
import time

import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def emit(value):
    print(json.dumps(value), flush=True)


tool_list_changed = 0


async def on_message(message):
    """Counts the server's notifications/tools/list_changed (from its GET stream)."""
    global tool_list_changed
    method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
    if method == "notifications/tools/list_changed":
        tool_list_changed += 1


async def steps(session):
    loop = asyncio.get_running_loop()
    try:
        init = await session.initialize()
        emit({"initialized": init.protocol_version, "server": init.server_info.name})
    except Exception as error:
        emit({"error": f"{type(error).__name__}: {error}"})
        return
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        words = line.strip().split(" ", 2)
        try:
            if words[0] == "tools":
                listed = await session.list_tools()
                emit({"tools": sorted(tool.name for tool in listed.tools)})
            elif words[0] == "call":
                result = await session.call_tool(words[1], json.loads(words[2]) if len(words) > 2 else {})
                text = "".join(getattr(block, "text", "") for block in result.content)
                emit({"text": text, "is_error": bool(result.is_error)})
            elif words[0] == "bench":
                name, rest = words[1], words[2].rsplit(" ", 1)
                arguments, count = json.loads(rest[0]), int(rest[1])
                seconds = []
                for _ in range(count):
                    start = time.perf_counter()
                    await session.call_tool(name, arguments)
                    seconds.append(time.perf_counter() - start)
                emit({"seconds": seconds})
            elif words[0] == "notifications":
                for _ in range(600):
                    if tool_list_changed:
                        break
                    await asyncio.sleep(0.1)
                emit({"tool_list_changed": tool_list_changed})
            elif words[0] == "wait":
                emit({"ok": True})
        except Exception as error:  # the test reads the error line
            emit({"error": f"{type(error).__name__}: {error}"})


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        parameters = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as session:
                await steps(session)
    else:
        url, token = sys.argv[2], sys.argv[3]
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await steps(session)


asyncio.run(main())
