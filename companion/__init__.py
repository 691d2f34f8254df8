"""companion: the web app a home poker group keeps open beside real cards and chips.

The application factory follows Flask's tutorial: ``create_app(test_config=None)``
with an instance folder for the SQLite file and local settings, and top-level
``templates/`` and ``static/`` folders (which a built wheel carries inside the package).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask

SECRET_KEY_FILE = "secret_key"


class ConfigError(RuntimeError):
    """The app cannot start safely with this configuration."""


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(
        __name__,
        instance_path=os.environ.get("COMPANION_INSTANCE_PATH") or None,
        instance_relative_config=True,
        template_folder=_shipped("templates"),
        static_folder=_shipped("static"),
    )
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=os.environ.get("COMPANION_DATABASE_URL")
        or "sqlite:///" + os.path.join(app.instance_path, "companion.sqlite"),
        SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": True},
        PRODUCTION=os.environ.get("COMPANION_ENV") == "production",
        PUBLIC_BASE_URL=os.environ.get("COMPANION_PUBLIC_BASE_URL", ""),
        MAX_CONTENT_LENGTH=2_500_000,
        WTF_CSRF_TIME_LIMIT=None,  # a night lasts longer than an hour
        # Our pages send no Referer (Referrer-Policy: no-referrer keeps the secret links
        # in); Flask-WTF's strict HTTPS check would refuse every form for lacking one.
        # The session-bound token (and the SameSite=Lax cookie) does the protecting.
        WTF_CSRF_SSL_STRICT=False,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        FAILED_LINK_LIMIT=30,  # unknown secret links per client per minute before 429
        NIGHT_LIMIT=20,  # nights started per client in any 10 minutes (companion.db.brakes)
        IMPORT_LIMIT=20,  # files imported per client in any 10 minutes
        GROUP_LIMIT=20,  # groups made per client in any 10 minutes (from its name, or from a night)
        # a screen ignores taps for this long after the tap that opened it (web/plumbing/tap_guard.py)
        TAP_GUARD_MS=int(os.environ.get("COMPANION_TAP_GUARD_MS") or 1000),
        # How many proxies in front of the app set X-Forwarded-For/-Proto/-Host (0: none,
        # the headers are ignored, so a client cannot pose as another to the limiter).
        TRUSTED_PROXIES=os.environ.get("COMPANION_TRUSTED_PROXIES", "0"),
        # Host names besides this machine's and the public address's (companion.web.plumbing.hosts)
        ALLOWED_HOSTS=os.environ.get("COMPANION_ALLOWED_HOSTS", ""),
        # bytes free on the disk that holds a SQLite database below which /healthz says the disk is full
        DISK_FREE_MIN=1_048_576,
        FOLD_CACHE_SIZE=256,  # nights whose fold each process keeps in memory (least recently used go)
        FOLD_CACHE_EVENTS=100_000,  # events those folds may hold in all: what bounds the memory
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    _configure_secret_key(app)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        # a file on this machine never drops a connection: no ping before each request's query
        app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {**app.config["SQLALCHEMY_ENGINE_OPTIONS"], "pool_pre_ping": False}

    from .extensions import csrf, db, migrate

    db.init_app(app)
    migrate.init_app(app, db, directory=str(Path(__file__).parent / "db" / "migrations"))
    csrf.init_app(app)

    from companion.db import disk
    from companion.db.engine import configure_engine
    from companion.db.engine import init_app as init_engine

    with app.app_context():
        configure_engine(db.engine)
        disk.watch(db.engine)  # a write that finds the disk full is told apart from a busy database
    init_engine(app)

    from companion import cli
    from companion.web.plumbing import compression
    from companion.web.plumbing import hosts
    from companion.web.plumbing import security
    from companion import service
    from companion.web.plumbing import static_files
    from companion.web import wiring

    service.configure_cache(int(app.config["FOLD_CACHE_SIZE"]), int(app.config["FOLD_CACHE_EVENTS"]))

    hosts.init_app(app)  # the first before_request: a Host the server is not meant for gets its 400 first
    compression.init_app(app)  # first registered, so its after_request hook runs last (issue 22)

    security.init_app(app)
    wiring.init_app(app)
    static_files.init_app(app)
    cli.init_app(app)
    _trust_proxies(app)
    return app


def _shipped(folder: str) -> str:
    """Where the app's ``templates/`` or ``static/`` is: in the package if a wheel put it there.

    The repository keeps both at its top level, beside the package, and so does an
    editable install; a built wheel carries them inside the package (``setup.py`` maps
    them there), since a wheel installs nothing beside its packages.
    """
    package = Path(__file__).resolve().parent
    inside = package / folder
    return str(inside if inside.is_dir() else package.parent / folder)


def _trust_proxies(app: Flask) -> None:
    """Behind an HTTPS proxy, see each phone's own address and the scheme it used.

    Without this every phone shares the proxy's address (one guesser would block the
    whole table) and HTTPS looks like HTTP (no Secure cookie).  Wraps the whole WSGI
    app, middleware included, so it is the first to see a request.
    """
    from .values.reading import Unreadable, whole_number

    raw = str(app.config["TRUSTED_PROXIES"])
    try:
        proxies = whole_number(raw, "COMPANION_TRUSTED_PROXIES", low=0, high=5)
    except Unreadable:
        raise ConfigError(f"COMPANION_TRUSTED_PROXIES must be a number of proxies from 0 to 5, not {raw.strip()[:20]!r}") from None
    if proxies:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]


def _configure_secret_key(app: Flask) -> None:
    """A real secret key: from the environment, the config, or ``instance/secret_key``.

    In development a missing key is made once and kept in the instance folder; in
    production (``COMPANION_ENV=production``) the app refuses to start without one.
    """
    key = os.environ.get("COMPANION_SECRET_KEY") or app.config.get("SECRET_KEY")
    path = Path(app.instance_path) / SECRET_KEY_FILE
    if not key and path.exists():
        key = path.read_text().strip()
    if not key:
        if app.config["PRODUCTION"]:
            raise ConfigError(
                "COMPANION_SECRET_KEY is not set and instance/secret_key does not exist; make one with\n"
                "  python3 -c 'import secrets; print(secrets.token_urlsafe(48))' > instance/secret_key"
            )
        key = secrets.token_urlsafe(48)
        path.write_text(key + "\n")
        path.chmod(0o600)
    if app.config["PRODUCTION"] and len(key) < 32:
        raise ConfigError("the secret key is too short for production: use at least 32 random characters")
    app.config["SECRET_KEY"] = key
    if app.config["PRODUCTION"] and app.config["PUBLIC_BASE_URL"].startswith("https://"):
        # (not setdefault: Flask's defaults already hold SESSION_COOKIE_SECURE=False)
        app.config["SESSION_COOKIE_SECURE"] = True
