"""A server factory for the crash tests: imports the app once, then forks a real server per request.

Importing the app costs about two seconds (Flask, SQLAlchemy, Alembic, pokerkit's
tables); killing fifty servers would spend most of a minute just importing.  This
process has gevent patch the standard library first, as each of ``serve``'s gunicorn
workers does before it builds the app (companion/web/plumbing/server.py), imports everything
once and never touches a database; each ``spawn`` forks a fresh child that builds the
app, upgrades the schema as ``serve`` does and serves it with gevent's WSGI server (a
greenlet per connection, as a gunicorn gevent worker), in a few tens of milliseconds.
The child is a separate process with its own connections, so a SIGKILL is a real crash
of a real server.

Protocol (one JSON object per line on stdin, one answer per line on stdout):

- ``{"cmd": "spawn", "env": {...}, "log": PATH}`` → ``{"pid": P, "port": N}``
  (written by the child once it listens) or ``{"error": ...}``.
- ``{"cmd": "kill", "pid": P}`` → ``{"killed": P, "status": S}``: SIGKILL, then reaped
  here, so the pid cannot be reused before the parent has waited for it.
"""

from gevent import monkey

monkey.patch_all()  # before anything else is imported, as a gunicorn gevent worker patches before it loads the app

import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import flask_migrate  # noqa: E402
from gevent.pywsgi import WSGIServer  # noqa: E402

import companion  # noqa: E402
import companion.cli  # noqa: E402,F401
import companion.service  # noqa: E402,F401
import companion.web  # noqa: E402,F401
from companion.web.pages import bank, bonus, choice, history, home, next_game, night_setup  # noqa: E402,F401
from companion.web.pages import players, report, share, table  # noqa: E402,F401


def _answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _child(env: dict[str, str], log: str) -> None:
    """Runs in the forked child: never returns."""
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 2)
        os.environ.update(env)
        app = companion.create_app()
        with app.app_context():
            flask_migrate.upgrade()
        server = WSGIServer(("127.0.0.1", 0), app, log=None)
        server.start()
        _answer({"pid": os.getpid(), "port": server.server_port})
        os.dup2(fd, 1)
        server.serve_forever()
    except BaseException:  # noqa: BLE001 - report anything, then die
        traceback.print_exc()
        try:
            _answer({"error": traceback.format_exc(limit=3)})
        finally:
            os._exit(1)
    os._exit(0)


def main() -> None:
    _answer({"ready": os.getpid()})
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "spawn":
            pid = os.fork()
            if pid == 0:
                _child(request["env"], request["log"])
        elif request["cmd"] == "kill":
            pid = int(request["pid"])
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status = os.waitpid(pid, 0)
            _answer({"killed": pid, "status": status})
        elif request["cmd"] == "exit":
            break


if __name__ == "__main__":
    main()
