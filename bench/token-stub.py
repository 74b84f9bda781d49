#!/usr/bin/env python3
"""A stand-in for authbrokerd's token route, for bench/authctl-startup.sh: answers every request on
the Unix socket argv[1] with a fixed text/plain token, so only authctl's own cost is measured."""
import os, socket, sys, threading

TOKEN = b"eyJhbGciOiJSUzI1NiJ9." + b"x" * 900 + b".sig\n"
ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(TOKEN)) + TOKEN

def serve(connection):
    with connection:
        data = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return
            data += chunk
            while b"\r\n\r\n" in data:
                _, data = data.split(b"\r\n\r\n", 1)
                connection.sendall(ANSWER)

path = sys.argv[1]
if os.path.exists(path):
    os.unlink(path)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(128)
print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
