"""What the players' 304 costs a waitress server beside a bare hello, with and without the change watch's read.

Run: .venv/bin/python bench/poll_watch_bench.py            (the app as it is)
     EVERY_POLL=1 .venv/bin/python bench/poll_watch_bench.py  (data_version read at every poll, as before 7fad16b)

One process: the app on a fresh SQLite file in /dev/shm with one night, served by ``serve``'s waitress
(KeepAliveTask) in a thread, and an asyncio client of 20 keep-alive connections in the same process
sending 6,000 requests at a time: ``/hello`` (a bare WSGI hello in front of the app) and the players'
poll with its current ETag (a 304), three rounds.  It prints the process's CPU per request, client
included (the same client for both), so the difference between the two is the server's.  Bounded:
loopback only, 42,000 requests in all.
"""
import asyncio
import os
import socket
import sys
import tempfile
import threading
import time
os.environ["COMPANION_ENV"] = "production"
from decimal import Decimal

def make():
    from companion import create_app
    d = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{d}/x.db", "SECRET_KEY": "x"*40})
    from companion import service
    from companion.extensions import db
    from companion.night.file import Money
    with app.app_context():
        db.create_all()
        n = service.open_night("N", ["Ann","Ben","Cat"], Money(Decimal("0.25"),"EUR"), {"kind":"napalm","players":None,"first_dealer":"Ann","rules":{"ante":1}}, None)
        key = n.viewer_key
    c = app.test_client()
    etag = c.get(f"/p/{key}/live", headers={"Host": "127.0.0.1"}).headers.get("ETag")
    return app, key, etag

def hello(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")]); return [b"hello"]

async def client(port, path, n, etag, conns=20):
    async def one():
        r, w = await asyncio.open_connection("127.0.0.1", port)
        req = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nIf-None-Match: {etag}\r\n\r\n".encode()
        for _ in range(n // conns):
            w.write(req); await w.drain()
            head = await r.readuntil(b"\r\n\r\n")
            if b"Content-Length: 5" in head: await r.readexactly(5)
            assert b" 304 " in head or b"hello" in head or b"200 OK" in head, head[:200]
            if b"Connection: close" in head:
                w.close(); r, w = await asyncio.open_connection("127.0.0.1", port)
        w.close()
    await asyncio.gather(*(one() for _ in range(conns)))

if __name__ == "__main__":
    app, key, etag = make()
    outer = app
    def both(environ, start_response):
        if environ["PATH_INFO"] == "/hello": return hello(environ, start_response)
        return outer(environ, start_response)
    if os.environ.get("EVERY_POLL"):
        from companion.db import change_watch
        change_watch.POLL_SLACK = 0.0
    from companion.web.waitress_serve import serve
    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    t = threading.Thread(target=serve, args=(both,), kwargs=dict(host="127.0.0.1", port=port, threads=8), daemon=True)
    t.start(); time.sleep(1)
    asyncio.run(client(port, f"/p/{key}/live", 2000, etag))
    res = {}
    for rnd in range(3):
        for path in ("/hello", f"/p/{key}/live"):
            c0 = time.process_time(); asyncio.run(client(port, path, 6000, etag)); c1 = time.process_time()
            res.setdefault(path[:6], []).append(round((c1-c0)/6000*1e6))
    print("process CPU per request incl. client (us):", res)
