"""An MCP server built with the official MCP Python SDK (PyPI `mcp`, 2.x: `MCPServer`), for
authbroker's tests and bench: Streamable HTTP on 127.0.0.1, a resource server whose token
verifier asks the mock authorization server's RFC 7662 introspection endpoint.

    sdk_server.py --issuer URL [--scope S]... [--json-response]

Prints "listening http://127.0.0.1:PORT/mcp" once it accepts connections; exits at end of stdin.
"""
import argparse
import json
import socket
import sys
import threading
import urllib.parse
import urllib.request
import warnings

import anyio
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings

warnings.simplefilter("ignore")


class IntrospectionVerifier:
    """SDK TokenVerifier: RFC 7662 introspection at the mock AS (the SDK's own examples do the same)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    async def verify_token(self, token):
        data = urllib.parse.urlencode({"token": token}).encode()
        try:
            with urllib.request.urlopen(urllib.request.Request(self.endpoint, data=data), timeout=10) as answer:
                info = json.load(answer)
        except Exception:
            return None
        if not info.get("active"):
            return None
        return AccessToken(
            token=token, client_id=info.get("client_id", ""), scopes=info.get("scope", "").split(),
            expires_at=info.get("exp"), resource=info.get("aud"), subject=info.get("sub"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--scope", action="append", default=[])
    parser.add_argument("--json-response", action="store_true")
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    resource = f"http://127.0.0.1:{port}/mcp"

    server = MCPServer(
        "sdk-test-server",
        token_verifier=IntrospectionVerifier(args.issuer + "/introspect"),
        auth=AuthSettings(
            issuer_url=args.issuer, resource_server_url=resource, required_scopes=args.scope or None,
            validate_token_resource=False))

    @server.tool()
    def echo(text: str) -> str:
        """Echoes text."""
        return text

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds two numbers."""
        return a + b

    @server.tool()
    async def announce(times: int, ctx: Context) -> str:
        """Sends notifications/tools/list_changed `times` times, a quarter second apart: on the
        session's standalone GET stream (it is related to no request), dropped while none is open."""
        for _ in range(times):
            await ctx.session.send_tool_list_changed()
            await anyio.sleep(0.25)
        return "announced"

    app = server.streamable_http_app(
        json_response=args.json_response,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn_server = uvicorn.Server(config)

    def watch_stdin():
        sys.stdin.read()
        uvicorn_server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    listener.listen(64)
    print(f"listening {resource}", flush=True)
    uvicorn_server.run(sockets=[listener])


if __name__ == "__main__":
    main()
