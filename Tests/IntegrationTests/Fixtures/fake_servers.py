#!/usr/bin/env python3
"""Test servers for IntegrationTests (never shipped).

  fake_servers.py daemon SOCKET   a stand-in authbrokerd on a Unix socket: the routes authctl's
                                  adapters use, tokens tok-1, tok-2, … (the next one after each
                                  rejection); GET /_fake/stats shows what it saw.
  fake_servers.py git ROOT TOKENFILE
                                  git smart HTTP (git-http-backend CGI) on 127.0.0.1, port printed,
                                  answering 401 unless Basic auth carries the token in TOKENFILE.
  fake_servers.py recorder LOGFILE
                                  an API on 127.0.0.1 (a GraphQL endpoint, say) that appends each
                                  request as one JSON line {method, path, headers, body} to LOGFILE
                                  and answers {"data": {}}.
  fake_servers.py forward LISTEN TARGET
                                  what `ssh -R LISTEN:TARGET` does on the server: a Unix socket at
                                  LISTEN (0600) whose connections are relayed to the Unix socket
                                  TARGET, so the daemon's peer is this process, as it is ssh.

All print "ready PORT-OR-PATH" on stdout and exit when stdin closes.
"""
import base64, http.server, json, os, socketserver, subprocess, sys, threading


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True


class FakeDaemon(Quiet):
    state = {"accounts": {}, "serial": {}, "rejections": [], "requests": []}

    def account_status(self, name):
        return {"name": name, "state": "active", "expires_at": "2030-01-01T00:00:00Z", "last_refresh": None,
                "last_error": None, "subject": "alice",
                "configuration": {k: v for k, v in self.state["accounts"][name].items() if k != "client_secret"}}

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def handle_any(self):
        state = self.state
        path, _, query = self.path.partition("?")
        parts = path.strip("/").split("/")
        state["requests"].append(f"{self.command} {self.path}")
        if path == "/_fake/stats":
            return self.reply(200, {"rejections": state["rejections"], "requests": state["requests"]})
        if path in ("/v1/accounts", "/v1/status") and self.command == "GET":
            return self.reply(200, {"accounts": [self.account_status(n) for n in sorted(state["accounts"])]})
        dry_run = "dry_run=1" in query.split("&")  # check only, as the daemon's dry_run=1
        if path == "/v1/accounts" and self.command == "POST":
            config = self.body()
            if dry_run:
                return self.reply(200, {"name": config["name"], "state": "logged_out"})
            state["accounts"][config["name"]] = config
            return self.reply(201, self.account_status(config["name"]))
        if len(parts) < 3 or parts[2] not in state["accounts"]:
            return self.reply(404, {"error": {"code": "unknown_account", "message": "No account named that."}})
        name = parts[2]
        serial = state["serial"].setdefault(name, 1)
        if len(parts) == 3 and self.command == "PUT":
            old, new = state["accounts"][name], self.body()
            if not dry_run:
                state["accounts"][name] = new
            outcome = "unchanged" if old == new else ("updated" if old.get("issuer") == new.get("issuer") else "signed_out")
            return self.reply(200, {"outcome": outcome, "account": self.account_status(name)})
        if len(parts) == 3 and self.command == "DELETE":
            del state["accounts"][name]
            return self.reply(204, b"")
        if parts[3:] == ["token"]:
            token = f"tok-{serial}"
            if "text/plain" in (self.headers.get("Accept") or ""):
                return self.reply(200, (token + "\n").encode(), "text/plain")
            return self.reply(200, {"access_token": token, "token_type": "Bearer",
                                    "expires_at": "2030-01-01T00:00:00Z", "scope": "openid"})
        if parts[3:] == ["id_token"]:
            return self.reply(200, {"id_token": f"idt-{serial}", "expires_at": "2030-01-01T00:05:00Z"})
        if parts[3:] == ["token", "rejected"] and self.command == "POST":
            rejected = self.body().get("access_token")
            current = rejected == f"tok-{serial}"
            state["rejections"].append(rejected)
            if current:
                state["serial"][name] = serial + 1
            return self.reply(200, {"refresh_scheduled": current})
        return self.reply(404, {"error": {"code": "invalid_request", "message": "no such route"}})

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


class GitServer(Quiet):
    root = ""
    token_file = ""

    def authorized(self):
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Basic "):
            return False
        _, _, password = base64.b64decode(header[6:]).decode().partition(":")
        with open(self.token_file) as f:
            return password == f.read().strip()

    def handle_any(self):
        if not self.authorized():
            return self.reply(401, b"no\n", "text/plain", [("WWW-Authenticate", 'Basic realm="git"')])
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {"GIT_PROJECT_ROOT": self.root, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
               "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_USER": "alice",
               "CONTENT_TYPE": self.headers.get("Content-Type") or "", "CONTENT_LENGTH": str(len(body)),
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            key, _, value = line.partition(": ")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key, value))
        content_type = dict(headers).pop("Content-Type", "application/octet-stream")
        self.reply(status, payload, content_type, [h for h in headers if h[0] != "Content-Type"])

    do_GET = do_POST = handle_any


class Recorder(Quiet):
    log = None
    lock = threading.Lock()

    def handle_any(self):
        length = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        body = self.rfile.read(length).decode("utf-8", "replace")
        entry = {"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": body}
        with Recorder.lock, open(Recorder.log, "a") as log:
            log.write(json.dumps(entry) + "\n")
        self.reply(200, {"data": {}})

    do_GET = do_POST = handle_any


class Forward(socketserver.BaseRequestHandler):
    target = ""

    def handle(self):
        import socket
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(Forward.target)

        def pump(source, sink):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                try:
                    sink.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

        back = threading.Thread(target=pump, args=(upstream, self.request), daemon=True)
        back.start()
        pump(self.request, upstream)
        back.join(30)
        upstream.close()


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class TCPServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    if sys.argv[1] == "daemon":
        server = UnixServer(sys.argv[2], FakeDaemon)
        os.chmod(sys.argv[2], 0o600)
        address = sys.argv[2]
    elif sys.argv[1] == "forward":
        Forward.target = sys.argv[3]
        old = os.umask(0o177)  # sshd's default StreamLocalBindMask: the socket is 0600 from the start
        server = UnixServer(sys.argv[2], Forward)
        os.umask(old)
        address = sys.argv[2]
    elif sys.argv[1] == "recorder":
        Recorder.log = sys.argv[2]
        server = TCPServer(("127.0.0.1", 0), Recorder)
        address = server.server_address[1]
    else:
        GitServer.root, GitServer.token_file = sys.argv[2], sys.argv[3]
        server = TCPServer(("127.0.0.1", 0), GitServer)
        address = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"ready {address}", flush=True)
    sys.stdin.read()


main()
