#!/usr/bin/env python3
"""Benchmark helpers against mock-oidc-provider (never used by tests).

  mock-login.py browse URL            play the browser: GET the authorization URL, follow the 302
                                      to the loopback listener (authctl login --no-browser)
  mock-login.py refresh-token ISSUER CLIENT_ID SECRET
                                      authorization code + PKCE against the mock, print the refresh
                                      token (to seed oidc-gen --rt non-interactively)
  mock-login.py seed SOCKET ISSUER N [FIRST=1]  add N accounts acct-0001… (numbered from FIRST) for the
                                      mock's public client through the socket API and sign each one in
                                      (POST …/login, browse)
  mock-login.py time N CMD -- CMD …  measure N runs of each command, interleaved A B A B …,
                                      process start to exit (stdout to /dev/null); prints
                                      "median p99" in ms per command, one line each
"""
import base64, hashlib, http.client, json, os, secrets, sys, time, urllib.parse, urllib.request


def get(url):
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=15)
    c.request("GET", u.path + ("?" + u.query if u.query else ""))
    r = c.getresponse()
    r.read()
    return r


def browse(url):
    r = get(url)
    assert r.status == 302, r.status
    assert get(r.getheader("Location")).status == 200


def refresh_token(issuer, client_id, secret):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    redirect = "http://127.0.0.1:1/cb"
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": redirect,
                                    "scope": "openid offline_access", "state": "s", "code_challenge": challenge,
                                    "code_challenge_method": "S256"})
    location = get(issuer + "/authorize?" + query).getheader("Location")
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]
    body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                   "code_verifier": verifier}).encode()
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    request = urllib.request.Request(issuer + "/token", body, {"Authorization": "Basic " + basic})
    print(json.load(urllib.request.urlopen(request))["refresh_token"])


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self):
        import socket
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def seed(socket_path, issuer, count, first=1):
    connection = UnixHTTPConnection(socket_path)

    def post(path, body):
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
        if response.status >= 300:
            sys.exit(f"POST {path}: {response.status} {data[:200]!r}")
        return json.loads(data) if data else {}

    for i in range(first, first + count):
        name = "acct-%04d" % i
        post("/v1/accounts", {"name": name, "issuer": issuer, "client_id": "mock-client",
                              "scopes": ["openid", "offline_access"]})
        browse(post(f"/v1/accounts/{name}/login", {"timeout_seconds": 60})["authorization_url"])


def interleaved(runs, commands, warmup=20):
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = [[] for _ in commands]
    for i in range(runs + warmup):
        for k, argv in enumerate(commands):
            start = time.monotonic_ns()
            _, status = os.waitpid(os.posix_spawn(argv[0], argv, os.environ, file_actions=actions), 0)
            elapsed = (time.monotonic_ns() - start) / 1e6
            if status != 0:
                sys.exit(f"{argv} failed with status {status}")
            if i >= warmup:
                times[k].append(elapsed)
    for t in times:
        t.sort()
        print("%.2f %.2f" % (t[len(t) // 2], t[min(len(t) - 1, int(len(t) * 0.99))]))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "browse":
        browse(sys.argv[2])
    elif command == "refresh-token":
        refresh_token(*sys.argv[2:5])
    elif command == "seed":
        seed(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    elif command == "time":
        commands, current = [], []
        for word in sys.argv[3:] + ["--"]:
            if word == "--":
                commands.append(current)
                current = []
            else:
                current.append(word)
        interleaved(int(sys.argv[2]), commands)
