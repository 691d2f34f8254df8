"""Kept pages answered before Flask, one small plug-in per kind of page (issues 22 and 25).

A page kept once rendered (web/kept_pages.py: a night's pages per version, a group's pages per stamp)
costs a repeat request one read of its stamp, its gaps pasted (a fresh request key in each form, the
CSRF token) and Flask's handling of a request and its answer, which was the most of it: context,
routing, the session read and written, the token signed, the ``after_request`` hooks.  This WSGI
middleware answers the repeat request itself, as the players' poll is answered (web/live_poll.py),
when it is sure Flask's answer would be the same but for what every request makes anew.

What differs between kinds of page is a plug-in (:class:`PageKind`): the path it answers, what of the
query string the page is kept by, how its stamp is read in one statement on the one-row reads' own pool,
the name the Flask path keeps the page by, and the path its headers are worked out on.  What is common
is here, and is the same for every kind:

* a GET of a kind's path, reached at an allowed host (the host check, web/hosts.py, is in front of it)
  over a plain WSGI root (no ``SCRIPT_NAME``), with no query string or one the kind reads as Flask's
  view reads ``request.args`` (:func:`args_of`) into what its page is kept by;
* a browser whose session cookie verifies as Flask's session would read it, holds no flashed message
  and, for a page with a form, already holds its CSRF secret (so Flask would send no cookie), and that
  takes deflate (the kept page goes out as the Flask path sends it: web/kept_pages.py);
* a valid link (the kind's stamp read now) whose page this process keeps at that stamp, by the name
  the Flask path keeps it by.

Each page is kept by what one statement reads: its stamp (a night's row by its link, a group's stamp: a
join over every night of the group) or the rows of the browser's nights (the home page, a player's page
across nights).  That read is remembered with the change watch's page generation (db/change_watch.py) and
made again only when something may have been committed since (:meth:`EarlyPages.remembered`): never late,
on SQLite for any commit, on PostgreSQL for any of the ``serve --workers`` family's.  A read that finds no
night or group (an unknown link) is never remembered: Flask decides it every time.

Anything else goes on to Flask unchanged: a first visit, a flash pending, a HEAD, a question the page is
not kept by, a page not kept here yet or kept at an older stamp, and any unknown or replaced link, which
Flask counts and brakes (``security.reject_unknown_link``); a valid link is always answered, by either
path, as before.  The answer's headers are the Flask path's, worked out once per kind and scheme by
running the app's ``after_request`` hooks and session on a kept page's response; its CSRF token is made
as Flask-WTF's ``generate_csrf`` makes it from the session's secret.

The kinds (:data:`KINDS`): a group's organiser's and members' pages ``/g/<key>`` and ``/m/<key>``; the
players' page ``/p/<key>`` and the players' report ``/p/<key>/report``; the scorekeeper's table screen
``/k/<key>``, report ``/k/<key>/report``, history ``/k/<key>/history`` and bank page ``/k/<key>/bank``, for a
browser whose session lists the night already (so that Flask would not write it); the report's CSV and
JSON on either link and the night file, as Flask-Compress sends them; the home page ``/`` and a player's
page across nights ``/players/<name>``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from operator import methodcaller
from typing import Any
from urllib.parse import parse_qsl

from flask import Flask, Response
from flask_compress.flask_compress import _choose_algorithm
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy.engine import Engine
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.http import parse_accept_header
from werkzeug.sansio.utils import get_current_url, get_host

from companion import service
from companion.games import GAMES
from companion.games.web import SCREENS
from companion.group.season import ALL_TIME, Period
from companion.web import compression, kept_pages
from companion.web.addresses import shared_address
from companion.web.groups import kept_as, period_from, read_stamp
from companion.web.kept_pages import Stamped
from companion.web.bank import bank_key
from companion.web.downloads import Download, same_name, stored
from companion.web.history import history_key
from companion.web.links import MAX_KEY_LENGTH, NightLink, keeper_row, viewer_link
from companion.web.live_poll import STANDINGS, current_version, headers_flask_sends, player_of
from companion.web.players import players_page
from companion.web.raw_reads import READ_ENGINE
from companion.web.report import report_page, view_of
from companion.web.session_cookie import SESSIONS_KEPT, session_cookies  # CSRF tokens are kept as many
from companion.web.table import table_page
from companion.web.first_game import first_games
from companion.web.this_browser import known_nights_of, marks_in, mark_of
from companion.web.while_unchanged import NOW, WhileUnchanged

#: the environ key set on a request answered here (the tests and the bench see which path answered)
ANSWERED = "companion.page_early"
#: stand in for the answer's length and a download's Content-Disposition in the kept headers (NUL is in no header)
_LENGTH = "\x00length"
_DISPOSITION = "\x00disposition"
#: the salt Flask-WTF signs a CSRF token with (flask_wtf.csrf.generate_csrf)
_CSRF_SALT = "wtf-csrf-token"
#: query strings read, kept by their kind and text (a page's links ask a handful of them); more are read anew
QUERIES_KEPT = 1024
#: stamps and browsers' nights remembered (a read each): past this, all are forgotten and read anew
REMEMBERED = 4096
#: an early answer: its headers, in Flask's order, and its body
Answer = tuple[list[tuple[str, str]], bytes]
#: a link in a path, as the blueprints' ``<key>`` takes it (the stamp's read checks it further)
_KEY = r"([A-Za-z0-9_-]{1,%d})" % MAX_KEY_LENGTH


def args_of(query: str) -> ImmutableMultiDict[str, str] | None:
    """``request.args`` of a request whose QUERY_STRING is ``query``, as Werkzeug makes it; None if it cannot.

    The WSGI string's Latin-1 bytes read as UTF-8, ``parse_qsl`` keeping blanks and leaving bad bytes
    percent-encoded, into an ``ImmutableMultiDict`` whose ``get`` takes a repeated name's first value.
    """
    try:
        return ImmutableMultiDict(
            parse_qsl(query.encode("latin1").decode(), keep_blank_values=True, errors="werkzeug.url_quote")
        )
    except (UnicodeError, ValueError):
        return None


@dataclass(frozen=True)
class Visit:
    """What a plug-in may need of the request besides its path and question: the session as Flask reads it,
    the scheme, ``request.host`` and ``request.host_url``, the app, ``remember(key, read)``: what
    ``read()`` gives, read again only if something may have been committed since it was last read for ``key``
    (:meth:`EarlyPages.remembered`), and where the WSGI server says it is (``SERVER_NAME``, ``SERVER_PORT``)."""

    app: Flask
    session: dict[str, Any]
    scheme: str
    host: str
    host_url: str
    remember: Callable[[Hashable, Callable[[], Any]], Any] = lambda key, read: read()
    server_name: str = ""
    server_port: str = ""


@dataclass(frozen=True)
class PageKind:
    """A plug-in: one kind of kept page answered before Flask.

    ``path``: the PATH_INFO it answers (matched whole; its groups go to ``stamp``).
    ``asks``: what of the query string the page is kept by, read as the Flask view reads ``request.args``
    (given "" for no query string); None: a question the page is not kept by, so Flask answers.
    ``stamp``: the page's stamp, read in one statement on the engine given (the one-row reads' own pool) and
    remembered until something may have been committed (:meth:`EarlyPages.remembered`); None: an unknown or
    replaced link (Flask counts it) or ask the ORM, never remembered.
    ``kept``: the page this process keeps for (visit, path's groups, stamp, what is asked), looked up by the
    name the Flask path keeps it by; None: not kept (yet, or at this stamp).
    ``header_path`` and ``session_key``: the path the Flask path's headers are worked out on, and what
    of the session its view reads there (so that "Vary: Cookie" is sent as Flask sends it; None: nothing).
    ``send``: for a kind kept as something else than a page with gaps (a download), its answer made from
    what ``kept`` gave; None for a kept page (:class:`~companion.web.kept_pages.Stamped`).
    """

    name: str
    path: re.Pattern[str]
    asks: Callable[[str], Hashable | None]
    stamp: Callable[[tuple[str, ...], Engine, Flask], Any]
    kept: Callable[[Visit, tuple[str, ...], Any, Any], Stamped | None]
    header_path: str
    session_key: str | None = "_flashes"
    send: Callable[[EarlyPages, dict[str, Any], str, PageKind, Any], Answer | None] | None = None


def no_question(query: str) -> Hashable | None:
    """``asks`` of a page kept by nothing in its address: only a request with no query string is answered."""
    return () if not query else None


# -- a group's two pages (web/groups.py) -------------------------------------------------------------

#: the address's questions a group's page is kept by (web/groups.py: period_from, _rivalry, _all_listed)
ASKED = frozenset({"period", "from", "to", "first", "second", "nights"})
#: what a page with no question asks: the whole season, no rivalry, the newest nights listed
PLAIN: tuple[Period, str, str, bool] = (ALL_TIME, "", "", False)


def asked_of(query: str) -> tuple[Period, str, str, bool] | None:
    """(period, first, second, nights in full) a group page's QUERY_STRING asks, as the Flask path reads it, or None.

    Read as :func:`args_of` reads it, and as the view reads those (:func:`~companion.web.groups.period_from`,
    ``first``/``second``, ``nights == "all"``).  None, so that Flask answers: a name the page is not kept by
    (a refused form's ``refused=`` above all, whose page is made for its request alone), a query Werkzeug
    could not read, or a period :func:`period_from` refuses (Flask's page says why, with a 400).
    """
    if not query:
        return PLAIN
    args = args_of(query)
    if args is None or not ASKED.issuperset(args.keys()):
        return None
    try:
        period = period_from(args)
    except Exception:  # noqa: BLE001 - whatever it is, Flask's path meets it and answers it
        return None
    return period, args.get("first", ""), args.get("second", ""), args.get("nights") == "all"


def _group_stamp(groups: tuple[str, ...], engine: Engine, app: Flask) -> Any:
    return read_stamp(groups[1], groups[0] == "g", engine)


def _group_kept(visit: Visit, groups: tuple[str, ...], stamp: Any, asked: Any) -> Stamped | None:
    members_link = shared_address(f"/m/{stamp[4]}", visit.scheme, visit.server_name, visit.server_port, visit.app.config)
    return kept_pages.across_nights(visit.app).get(kept_as(stamp, groups[0] == "g", *asked, members_link))


#: the organiser's page ``/g/<key>`` and the members' page ``/m/<key>``, kept per group stamp and question
GROUP_PAGES = PageKind("group", re.compile(r"/([gm])/" + _KEY), asked_of, _group_stamp, _group_kept, "/g/key", "_flashes")

# -- the players' page and the players' report (web/players.py, web/report.py) ----------------------


def _players_stamp(groups: tuple[str, ...], engine: Engine, app: Flask) -> Any:
    """(night id, version, ETag) of the night whose players' link is the path's, as the poll reads it."""
    return current_version(groups[0], engine, app.config["SECRET_KEY"])


def _players_kept(visit: Visit, groups: tuple[str, ...], stamp: Any, asked: Any) -> Stamped | None:
    """The players' page kept at this version for this phone's player ("this is me"), as players.show looks it up."""
    night_id, version = stamp[0], stamp[1]
    st = service.derived(STANDINGS, night_id, version)
    if st is None:
        return None
    return kept_pages.stamped(players_page(groups[0], player_of(visit.session, night_id, st)), night_id, version)


#: the players' page ``/p/<key>``, kept per version and "me" (its view reads no question)
PLAYERS_PAGE = PageKind("players", re.compile("/p/" + _KEY), no_question, _players_stamp, _players_kept, "/p/key", "me")


def report_asked(query: str) -> Hashable | None:
    """The report's view a QUERY_STRING asks, as report.keeper and report.viewer read it; None for any other name."""
    if not query:
        return "plan"
    args = args_of(query)
    if args is None or not set(args.keys()) <= {"view"}:
        return None
    return view_of(args)


def _viewer_stamp(groups: tuple[str, ...], engine: Engine, app: Flask) -> Any:
    return viewer_link(groups[0], engine)


def _viewer_report_kept(visit: Visit, groups: tuple[str, ...], link: Any, view: Any) -> Stamped | None:
    return kept_pages.stamped(report_page(link, False, link.continued, link.group, view), link.id, link.version)


#: the players' report ``/p/<key>/report``, kept per version and view
PLAYERS_REPORT = PageKind(
    "players-report", re.compile("/p/" + _KEY + "/report"), report_asked, _viewer_stamp, _viewer_report_kept,
    "/p/key/report",
)

# -- the scorekeeper's pages (web/table.py, web/report.py, web/history.py, web/bank.py) ---------------


def _keeper_stamp(groups: tuple[str, ...], engine: Engine, app: Flask) -> Any:
    """The night whose scorekeeper link is the path's, as ``links.keeper_link`` reads it, without adding it to
    the browser's nights: :func:`_known` checks the browser has it already, or Flask answers and adds it."""
    return keeper_row(groups[0], engine)


def _known(visit: Visit, link: NightLink) -> bool:
    """Whether this browser's session lists the night already, as ``this_browser.remember`` reads it: then the
    Flask path changes nothing in it and sends no cookie."""
    return (link.id, mark_of(link.keeper_key, visit.app.config["SECRET_KEY"])) in marks_in(visit.session)


def _keeper(name: Callable[[NightLink, Any], Hashable]) -> Callable[[Visit, tuple[str, ...], Any, Any], Stamped | None]:
    """``kept`` of a scorekeeper's page kept per version by ``name(link, asked)``, for a browser that knows the night."""

    def kept(visit: Visit, groups: tuple[str, ...], link: Any, asked: Any) -> Stamped | None:
        if not _known(visit, link):
            return None
        return kept_pages.stamped(name(link, asked), link.id, link.version)

    return kept


def history_asked(query: str) -> Hashable | None:
    """The history's page a QUERY_STRING asks (``page=``, "1" by default), as history.show reads it; None for
    any other name."""
    if not query:
        return "1"
    args = args_of(query)
    if args is None or not set(args.keys()) <= {"page"}:
        return None
    return args.get("page", "1")


#: the table screen ``/k/<key>``, kept per version (and the night its pot went to); no refusal shown again
TABLE_SCREEN = PageKind(
    "table", re.compile("/k/" + _KEY), no_question, _keeper_stamp,
    _keeper(lambda link, asked: table_page(link, link.continued)), "/k/key", "nights",
)
#: the scorekeeper's report ``/k/<key>/report``, kept per version and view
KEEPER_REPORT = PageKind(
    "keeper-report", re.compile("/k/" + _KEY + "/report"), report_asked, _keeper_stamp,
    _keeper(lambda link, view: report_page(link, True, link.continued, link.group, view)), "/k/key/report", "nights",
)
#: the history ``/k/<key>/history``, kept per version and page
HISTORY = PageKind(
    "history", re.compile("/k/" + _KEY + "/history"), history_asked, _keeper_stamp,
    _keeper(lambda link, page: history_key(link, page)), "/k/key/history", "nights",
)
#: the bank page ``/k/<key>/bank``, kept per version (and the night its pot went to); no refusal shown again
BANK = PageKind(
    "bank", re.compile("/k/" + _KEY + "/bank"), no_question, _keeper_stamp,
    _keeper(lambda link, asked: bank_key(link, link.continued)), "/k/key/bank", "nights",
)

# -- the downloads (web/report.py, web/history.py, web/downloads.py) -----------------------------------


def _send_download(early: EarlyPages, environ: dict[str, Any], scheme: str, kind: PageKind, kept: Any) -> Answer | None:
    """The kept download as the Flask path sends it: as it is, or in the encoding Flask-Compress picks for this
    browser, from the bytes it keeps compressed (none kept yet: Flask compresses and keeps them)."""
    download, name = kept
    body = download.body
    encoding = early.encoding_of(environ.get("HTTP_ACCEPT_ENCODING", ""), download.mimetype, len(body))
    if encoding is not None:
        body = early.app.extensions[compression.ONCE].cache.get(f"{encoding};{name}")
        if body is None:
            return None
    values = {_LENGTH: str(len(body)), _DISPOSITION: download.disposition}
    headers = [(k, values.get(v, v)) for k, v in early.download_headers(kind, scheme, download.mimetype)]
    if encoding is not None:
        headers.append(("Content-Encoding", encoding))  # Flask-Compress's hook runs last, and adds it last
    return headers, body


def _report_file(kind: str) -> Callable[[Any, Any], tuple[Download, str] | None]:
    """``name`` of the report as a file (report._download): the CSV per view, the JSON for any."""

    def found(link: Any, view: Any) -> tuple[Download, str] | None:
        what = f"{kind}/{view if kind == 'csv' else '-'}/{link.continued}"
        download = stored(what, link.id, link.version)
        return (download, same_name(what, link.id, link.version)) if download is not None else None

    return found


def _viewer_file(name: Callable[[Any, Any], Any]) -> Callable[[Visit, tuple[str, ...], Any, Any], Any]:
    return lambda visit, groups, link, asked: name(link, asked)


def _keeper_file(name: Callable[[Any, Any], Any]) -> Callable[[Visit, tuple[str, ...], Any, Any], Any]:
    return lambda visit, groups, link, asked: name(link, asked) if _known(visit, link) else None


def _night_file(link: Any, asked: Any) -> tuple[Download, str] | None:
    download = stored("export", link.id, link.version)
    return (download, same_name("export", link.id, link.version)) if download is not None else None


#: the report as CSV and JSON on either link, and the night file on the scorekeeper's: kept per version (and
#: view) as bytes; the players' link's never reads the session
DOWNLOADS = (
    PageKind("players-csv", re.compile("/p/" + _KEY + r"/report\.csv"), report_asked, _viewer_stamp,
             _viewer_file(_report_file("csv")), "/p/key/report.csv", None, _send_download),
    PageKind("players-json", re.compile("/p/" + _KEY + r"/report\.json"), report_asked, _viewer_stamp,
             _viewer_file(_report_file("json")), "/p/key/report.json", None, _send_download),
    PageKind("keeper-csv", re.compile("/k/" + _KEY + r"/report\.csv"), report_asked, _keeper_stamp,
             _keeper_file(_report_file("csv")), "/k/key/report.csv", "nights", _send_download),
    PageKind("keeper-json", re.compile("/k/" + _KEY + r"/report\.json"), report_asked, _keeper_stamp,
             _keeper_file(_report_file("json")), "/k/key/report.json", "nights", _send_download),
    PageKind("night-file", re.compile("/k/" + _KEY + r"/export\.json"), no_question, _keeper_stamp,
             _keeper_file(_night_file), "/k/key/export.json", "nights", _send_download),
)

# -- the home page (web/home.py) -----------------------------------------------------------------------


def home_asked(query: str) -> Hashable | None:
    """The first game the home page's address asks (``game=``; "" for the default), as home.index reads it; None
    for any other name.  Which games are offered is looked at per request (:func:`_home_kept`)."""
    if not query:
        return ""
    args = args_of(query)
    if args is None or not set(args.keys()) <= {"game"}:
        return None
    return args.get("game", "")


def _home_stamp(groups: tuple[str, ...], engine: Engine, app: Flask) -> Any:
    """The home page is kept by the rows of the browser's nights, which its session names: read in
    :func:`_home_kept`, with the engine given here."""
    return engine


def _home_kept(visit: Visit, groups: tuple[str, ...], engine: Any, game: Any) -> Stamped | None:
    """The home page kept for this browser's nights (one read of their rows) and the first game asked, as
    home.index looks it up; None for a game not offered (Flask's 400) or a failed read (Flask asks the ORM)."""
    kind = game or first_games()[0][0]
    if kind not in SCREENS or kind not in GAMES:
        return None
    nights = _known_nights(visit, engine)
    if nights is None:
        return None
    return kept_pages.across_nights(visit.app).get(("home", kind, nights))


def _known_nights(visit: Visit, engine: Engine) -> tuple[Any, ...] | None:
    """The rows of the nights this browser keeps score of (``known_nights_of``), read again only after a commit:
    remembered by the (night, mark) pairs its session holds, which alone say what is read (and the secret the
    marks are checked under)."""
    secret = visit.app.config["SECRET_KEY"]
    marks = tuple(marks_in(visit.session))
    return visit.remember(("nights", marks, secret), lambda: known_nights_of(visit.session, secret, engine))


#: the home page ``/``, kept per first game and the rows of the nights the browser keeps score of (read again
#: only after a commit: _known_nights)
HOME = PageKind("home", re.compile("/()"), home_asked, _home_stamp, _home_kept, "/", "nights")

# -- a player's page across nights (web/report.py) -----------------------------------------------------


def _player_kept(visit: Visit, groups: tuple[str, ...], engine: Any, asked: Any) -> Stamped | None:
    """A player's page kept for this browser's nights (one read of their rows), as report.player looks it up by
    the name routing gives it (PATH_INFO's bytes read as UTF-8); None: a name Werkzeug would read otherwise."""
    try:
        name = groups[0].encode("latin1").decode()
    except UnicodeError:
        return None
    if any(part in (".", "..") for part in name.split("/")):
        return None
    nights = _known_nights(visit, engine)
    if nights is None:
        return None
    return kept_pages.across_nights(visit.app).get(("player", name, nights))


#: a player's nights ``/players/<name>``, kept per name and the rows of the browser's nights; a name with an
#: empty part (``//``, a slash at either end: routing redirects or refuses it) is left to Flask
PLAYER = PageKind("player", re.compile(r"/players/([^/]+(?:/[^/]+)*)"), no_question, _home_stamp, _player_kept,
                  "/players/name", "nights")

#: every kind of page answered before Flask, tried in this order (the conformance test runs over them all)
KINDS: tuple[PageKind, ...] = (
    GROUP_PAGES, PLAYERS_PAGE, PLAYERS_REPORT, TABLE_SCREEN, KEEPER_REPORT, HISTORY, BANK, *DOWNLOADS, HOME, PLAYER,
)


class EarlyPages:
    """WSGI middleware: a repeat request for a kept page answered from the page kept, without Flask.

    ``answered`` counts the requests answered here (per process), for the tests and the bench.
    """

    def __init__(self, app: Flask, wsgi_app: Callable[..., Any], kinds: tuple[PageKind, ...] = KINDS) -> None:
        self.app = app
        self.wsgi_app = wsgi_app
        self.kinds = kinds
        self.cookies = session_cookies(app)  # reads the session cookie exactly as Flask's session does
        self.answered = 0
        self._headers: dict[tuple[str, str], list[tuple[str, str]]] = {}  # by kind and scheme: HTTPS adds HSTS
        self._csrf: tuple[Any, URLSafeTimedSerializer] | None = None
        self._takes_deflate: dict[str, bool] = {}
        self._encodings: dict[str, str | None] = {}
        self._download_headers: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        self._host_urls: dict[tuple[str, str], str] = {}
        self._queries: dict[tuple[str, str], Hashable | None] = {}
        self._tokens: dict[str, tuple[int, Any, str]] = {}  # by the session's CSRF secret
        self._lock = threading.Lock()
        #: what :meth:`remembered` read, by key, with the page generation it was read at
        self._remembered: WhileUnchanged[Any] = WhileUnchanged(app, methodcaller("page_generation"), REMEMBERED)

    def __call__(self, environ: dict, start_response: Callable[..., Any]):  # type: ignore[no-untyped-def,type-arg]
        if environ.get("REQUEST_METHOD") == "GET":
            path = environ.get("PATH_INFO", "")
            for kind in self.kinds:
                match = kind.path.fullmatch(path)
                if match is None:
                    continue
                asked = self._asked(kind, environ.get("QUERY_STRING", ""))
                if asked is not None:
                    answer = self.answer(environ, kind, match.groups(), asked)
                    if answer is not None:
                        environ[ANSWERED] = True
                        self.answered += 1
                        start_response("200 OK", answer[0])
                        return [answer[1]]
                break
        return self.wsgi_app(environ, start_response)

    def answer(self, environ: dict, kind: PageKind, groups: tuple[str, ...],  # type: ignore[type-arg]
               asked: Any) -> tuple[list[tuple[str, str]], bytes] | None:
        """(headers, body) of ``kind``'s kept page for this request, or None: Flask answers it.

        ``groups``: the path's groups; ``asked``: what its query string asks, as ``kind.asks`` reads it."""
        if environ.get("SCRIPT_NAME"):
            return None
        host_header, scheme = environ.get("HTTP_HOST"), environ.get("wsgi.url_scheme")
        if not host_header or scheme not in ("http", "https") or self.app.config.get("TRUSTED_HOSTS"):
            return None
        host = get_host(scheme, host_header)  # request.host and request.host_url, as Werkzeug makes them
        if not host:
            return None
        data = self._session(environ)
        if data is None or "_flashes" in data:
            return None  # a session Flask would send again, or a message to show
        engine = self.app.extensions[READ_ENGINE]()
        # one look at the change watch for every read this request remembers (on SQLite, a data_version read)
        remember = partial(self.remembered, generation=self._remembered.generation())
        stamp = remember((kind.name, groups), lambda: kind.stamp(groups, engine, self.app))
        if stamp is None:
            return None  # a replaced or unknown link (Flask counts it), or ask the ORM
        visit = Visit(self.app, data, scheme, host, self._host_url(scheme, host), remember,
                      str(environ.get("SERVER_NAME", "")), str(environ.get("SERVER_PORT", "")))
        kept = kind.kept(visit, groups, stamp, asked)
        if kept is None:
            return None
        if kind.send is not None:
            return kind.send(self, environ, scheme, kind, kept)
        if not kept_pages.sent_compressed(kept) or not self._deflate_taken(environ.get("HTTP_ACCEPT_ENCODING", "")):
            return None
        token = None
        if "csrf" in kept.gaps:
            token = self._csrf_token(data)
            if token is None:
                return None
        filled = [value.encode() for value in kept_pages.gap_values(kept, token, str)]
        body = kept_pages.deflate_stream(kept.deflated, filled)
        length = str(len(body))
        return [(k, length if v == _LENGTH else v) for k, v in self._response_headers(kind, scheme)], body

    def remembered(self, key: Hashable, read: Callable[[], Any], generation: Hashable | None = NOW) -> Any:
        """What ``read()`` gives (a stamp, the rows of a browser's nights), read again only when something may have
        been committed since it was read for ``key``: web/while_unchanged.py, with the change watch's page
        generation (never late for a commit a request could know of: db/change_watch.py).  A request's reads
        share one ``generation``, taken before the first (:meth:`answer`); by default, taken now."""
        return self._remembered.get(key, read, generation)

    def encoding_of(self, header: str, mimetype: str, length: int) -> str | None:
        """The encoding Flask-Compress sends a same body in (compression.py's ``once``), for Accept-Encoding
        ``header``, a body of ``mimetype`` and ``length`` bytes; None: sent as it is."""
        once = self.app.extensions[compression.ONCE]
        if mimetype not in once.compress_mimetypes_set or length < self.app.config["COMPRESS_MIN_SIZE"]:
            return None
        chosen = self._encodings.get(header, False)
        if chosen is False:
            chosen = _choose_algorithm(once.enabled_algorithms, header)
            if len(self._encodings) < 64:  # browsers send a handful of these
                self._encodings[header] = chosen
        return chosen  # type: ignore[return-value]

    def download_headers(self, kind: PageKind, scheme: str, mimetype: str) -> list[tuple[str, str]]:
        """The Flask path's headers of a download of ``mimetype`` sent as it is, in its order, with :data:`_LENGTH`
        and :data:`_DISPOSITION` for the values that are the download's own."""
        key = (kind.name, scheme, mimetype)
        kept = self._download_headers.get(key)
        if kept is not None:
            return kept
        with self._lock:
            if key not in self._download_headers:
                self._download_headers[key] = headers_flask_sends(
                    self.app, kind.header_path, scheme, kind.session_key,
                    lambda: Response(b"x", mimetype=mimetype, headers={"Content-Disposition": "attachment"}),
                    {"content-length": _LENGTH, "content-disposition": _DISPOSITION},
                )
            return self._download_headers[key]

    def _asked(self, kind: PageKind, query: str) -> Hashable | None:
        """``kind.asks(query)``, kept by its text (the same text reads the same, whatever the day)."""
        try:
            return self._queries[(kind.name, query)]
        except KeyError:
            pass
        asked = kind.asks(query)
        if len(self._queries) >= QUERIES_KEPT:
            self._queries.clear()  # a flood of questions: start again rather than keep them all
        self._queries[(kind.name, query)] = asked
        return asked

    def _host_url(self, scheme: str, host: str) -> str:
        """``request.host_url`` (Werkzeug's get_current_url: ``scheme://host/`` as an IRI), by scheme and host."""
        url = self._host_urls.get((scheme, host))
        if url is None:
            url = get_current_url(scheme, host)
            if len(self._host_urls) < 64:  # a server is reached at a handful of names
                self._host_urls[(scheme, host)] = url
        return url

    def _deflate_taken(self, header: str) -> bool:
        """Whether Accept-Encoding ``header`` takes deflate, as ``request.accept_encodings`` reads it (by header)."""
        taken = self._takes_deflate.get(header)
        if taken is None:
            taken = "deflate" in parse_accept_header(header)
            if len(self._takes_deflate) < 64:  # browsers send a handful of these
                self._takes_deflate[header] = taken
        return taken

    def _session(self, environ: dict) -> dict | None:  # type: ignore[type-arg]
        """The session as Flask reads it, kept by the cookie that sent it (web/session_cookie.py, shared with the poll)."""
        return self.cookies.read(environ)

    def _csrf_token(self, data: dict) -> str | None:  # type: ignore[type-arg]
        """The CSRF token ``flask_wtf.csrf.generate_csrf`` makes for this session; None when it would first make
        the session's secret (Flask then sends a cookie)."""
        config = self.app.config
        field = config.get("WTF_CSRF_FIELD_NAME") or "csrf_token"
        raw = data.get(field)
        if not isinstance(raw, str):
            return None
        secret = config.get("WTF_CSRF_SECRET_KEY") or self.app.secret_key
        if not secret:
            return None
        kept = self._csrf
        if kept is None or kept[0] != secret:
            kept = self._csrf = (secret, URLSafeTimedSerializer(secret, salt=_CSRF_SALT))
        # the token is the secret signed with the second it is made in: the same second makes the same
        # token, so one made this second for this session's secret is the one generate_csrf would make
        now = int(time.time())
        made = self._tokens.get(raw)
        if made is not None and made[0] == now and made[1] == secret:
            return made[2]
        token: str = kept[1].dumps(raw)
        if len(self._tokens) >= SESSIONS_KEPT:
            self._tokens.clear()
        self._tokens[raw] = (now, secret, token)
        return token

    def _response_headers(self, kind: PageKind, scheme: str) -> list[tuple[str, str]]:
        """The Flask path's headers of ``kind``'s kept page sent compressed, in its order, :data:`_LENGTH` for its
        length."""
        kept = self._headers.get((kind.name, scheme))
        if kept is not None:
            return kept
        with self._lock:
            if (kind.name, scheme) not in self._headers:
                self._headers[(kind.name, scheme)] = headers_flask_sends(
                    self.app, kind.header_path, scheme, kind.session_key,
                    lambda: kept_pages.deflated_response(b"x"), {"content-length": _LENGTH},
                )
            return self._headers[(kind.name, scheme)]


def init_app(app: Flask) -> None:
    """Put the middleware in front of the app (behind the host check and a trusted proxy's headers)."""
    middleware = EarlyPages(app, app.wsgi_app)
    app.extensions["companion_early_pages"] = middleware
    app.wsgi_app = middleware  # type: ignore[method-assign]
