"""Post/Redirect/Get for every submit, refused ones included (issue 14, bug 3).

A refused submit used to answer its POST with the page itself (422 or 409): the
address bar then showed the POST-only URL (``/k/…/cards``), reloading re-sent the
form, and opening that address gave a 405 page.  Now every POST answers 303.  A
refused one first keeps what was typed, the errors and the status under a random
token; the redirect goes to the page's own GET address with ``?refused=<token>``,
and that GET shows the form again as it was typed, with its errors, and answers with
the kept status (422 or 409) so that the refusal is still a 4xx.  Reloading that
address shows the same page and sends nothing.

What is kept lives in the database (``service.keep_refusal``, read back by
``service.kept_refusal``: a table of its own), shared by every process, not in the session
cookie: the cookie is signed but anyone holding it reads it, and it held the page's address
(the scorekeeper's link) and what was typed; a refused Bonus Round grid made it 8 KB, which
browsers drop (issue 21, items 3 and 4).  The cookie now holds only the token, so only the
browser that was refused sees its refusal, and only at the page it was refused for (the row
keeps a digest of that path, never the path).  Only one refusal is kept per browser (the
latest: the one before is deleted); an older ``?refused=`` address, or one older than
:data:`KEEP_SECONDS`, shows the plain page.  Rows are deleted after :data:`KEEP_SECONDS`,
beyond the newest :data:`MAX_PER_CLIENT` of each client address, and beyond :data:`MAX_KEPT`
in all (taken from the address holding the most), and each is at most about
:data:`MAX_CONTENT` bytes: nobody can fill the disk with refusals, and a flood of refused
submits from one address (1,100 in 4.4 s, issue 36) pushes out only its own, never another
phone's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from flask import redirect, request, session
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from companion import service
from companion.values.limits import UNSTORABLE as _UNSTORABLE
from companion.web.plumbing.security import client_id

SESSION_KEY = "refused"
#: never kept: secrets and per-attempt values the page makes afresh
NOT_KEPT = ("csrf_token", "request_key", "version")
#: a field longer than this is kept cut (a form's longest field takes 200: the Bonus grid's cells)
MAX_VALUE = 200
#: at most this many typed values are kept (the Bonus Round's 6×6 grid sends about 45)
MAX_PAIRS = 100
#: a refusal's page shows it for an hour; then it is deleted
KEEP_SECONDS = 3600
#: the newest refusals kept in all: at most about MAX_KEPT × MAX_CONTENT bytes (64 MB); beyond it
#: the address holding the most loses its oldest
MAX_KEPT = 1_000
#: the newest refusals kept per client address: the phones of a table behind one address (a home
#: network's, seen from a public server) are each refused far fewer times than this in an hour
MAX_PER_CLIENT = 50
#: what one refusal may take, as stored (JSON): beyond it what was typed is not kept, only why it was refused
MAX_CONTENT = 64_000


@dataclass
class Refusal:
    """What a refused submit left for the page it redirects to."""

    status: int
    message: str | None = None
    form: str | None = None
    data: list[tuple[str, str]] = field(default_factory=list)
    errors: dict[str, list[str]] = field(default_factory=dict)
    form_errors: list[str] = field(default_factory=list)
    version: int | None = None

    def refill(self, form: Any) -> Any:
        """Put what was typed and its errors back into a freshly made ``form``; return it."""
        form.process(formdata=MultiDict(self.data))
        for name, errors in self.errors.items():
            if name in form._fields:
                form._fields[name].errors = list(errors)
        form.form_errors = list(self.form_errors)
        form._errors = None  # WTForms caches form.errors
        return form


def refuse(
    location: str,
    status: int,
    *,
    message: str | None = None,
    form_name: str | None = None,
    form: Any = None,
    data: list[tuple[str, str]] | None = None,
    version: int | None = None,
    anchor: str | None = None,
) -> Response:
    """Keep ``form`` (as typed, or ``data``) and ``message`` for ``location``, and redirect there (303), to the
    element ``anchor`` names when given (the section of a long page the refused form is in).

    ``status`` is what the page at ``location`` answers: 422 or 409 for a refusal, 200
    for a form that was changed without being saved (the ↑ seat buttons).
    """
    refusal = Refusal(status=status, message=message, form=form_name, version=version)
    if form is not None:
        pairs = data if data is not None else list(request.form.items(multi=True))
        refusal.data = [
            (name[:MAX_VALUE], value[:MAX_VALUE])
            for name, value in pairs
            if name not in NOT_KEPT and isinstance(value, str)
        ][:MAX_PAIRS]
        # from the fields themselves: a view may add an error after WTForms cached form.errors
        refusal.errors = {
            f.name: [str(e) for e in f.errors]
            for f in form
            if f.name != "csrf_token" and isinstance(f.errors, list) and f.errors
        }
        refusal.form_errors = [str(e) for e in form.form_errors]
    token = keep(location.split("?", 1)[0], refusal)
    at = f"#{anchor}" if anchor else ""
    return redirect(location + ("&" if "?" in location else "?") + "refused=" + token + at, code=303)


def _storable(value: Any) -> Any:
    """``value`` with what no database stores (a NUL, a broken character) shown as \ufffd."""
    if isinstance(value, str):
        return _UNSTORABLE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable(v) for v in value]
    return value


def path_digest(path: str) -> str:
    """What the kept row says of the page's path: enough to match it, never the link itself."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()


def keep(path: str, refusal: Refusal) -> str:
    """Store ``refusal`` for the page at ``path`` and this browser; return its token.

    The service stores it, in its own short transaction (nothing of the refused request is
    pending: a refusal records nothing).
    """
    content: dict[str, Any] = _storable(refusal.__dict__)
    if len(json.dumps(content)) > MAX_CONTENT:  # as stored: the form comes back empty, with its errors cut
        content.update(
            data=[],
            errors={name: [e[:MAX_VALUE] for e in errors[:3]] for name, errors in list(content["errors"].items())[:20]},
            form_errors=[e[:MAX_VALUE] for e in content["form_errors"][:3]],
        )
    before = session.get(SESSION_KEY)
    token = service.keep_refusal(
        path_digest(path), content, client=client_id(), replaces=before if isinstance(before, str) else None,
        keep_seconds=KEEP_SECONDS, max_kept=MAX_KEPT, max_per_client=MAX_PER_CLIENT,
    )
    session[SESSION_KEY] = token
    return token


def typed(form: Any) -> list[tuple[str, str]]:
    """The values ``form`` holds now, as a browser would send them (for a form a view changed)."""
    pairs: list[tuple[str, str]] = []
    for f in form:
        if f.name in NOT_KEPT or f.type in ("SubmitField", "CSRFTokenField") or f.data is None:
            continue
        if f.type == "BooleanField":  # a checkbox: sent only when ticked ("False" would read as ticked)
            if f.data:
                pairs.append((f.name, "y"))
            continue
        for value in f.data if isinstance(f.data, list) else [f.data]:
            pairs.append((f.name, str(value)))
    return pairs


def recall(version: int | None = None) -> Refusal | None:
    """The refusal this GET was redirected for, or None (another address, or the table moved on)."""
    token = request.args.get("refused")
    mine = session.get(SESSION_KEY)
    if not token or not isinstance(mine, str) or not hmac.compare_digest(token.encode(), mine.encode()):
        return None
    found = service.kept_refusal(mine, keep_seconds=KEEP_SECONDS)
    if found is None or not hmac.compare_digest(found[0], path_digest(request.path)):
        return None
    kept: dict[str, Any] = found[1]
    if version is not None and kept.get("version") is not None and kept["version"] != version:
        # recorded since: the form as typed is for a screen that is gone, but the refusal
        # and its reason still stand (nothing of this submit was recorded)
        errors = [e for es in kept.get("errors", {}).values() for e in es] + list(kept.get("form_errors", []))
        message = kept.get("message") or ("That was not recorded: " + "; ".join(errors) if errors else None)
        return Refusal(status=int(kept["status"]), message=message or "That was not recorded.")
    return Refusal(
        status=int(kept["status"]),
        message=kept.get("message"),
        form=kept.get("form"),
        data=[tuple(pair) for pair in kept.get("data", [])],  # type: ignore[misc]
        errors=kept.get("errors", {}),
        form_errors=kept.get("form_errors", []),
        version=kept.get("version"),
    )
