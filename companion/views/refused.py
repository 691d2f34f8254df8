"""Post/Redirect/Get for every submit, refused ones included (issue 14, bug 3).

A refused submit used to answer its POST with the page itself (422 or 409): the
address bar then showed the POST-only URL (``/k/…/cards``), reloading re-sent the
form, and opening that address gave a 405 page.  Now every POST answers 303.  A
refused one first keeps, in this browser's session, what was typed, the errors
and the status, under a short token; the redirect goes to the page's own GET
address with ``?refused=<token>``, and that GET shows the form again as it was
typed, with its errors, and answers with the kept status (422 or 409) so that the
refusal is still a 4xx.  Reloading that address shows the same page and sends
nothing.  Only one refusal is kept per browser (the latest): the cookie stays
small, and an older ``?refused=`` address simply shows the plain page.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from flask import redirect, request, session
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

SESSION_KEY = "refused"
#: never kept: secrets and per-attempt values the page makes afresh
NOT_KEPT = ("csrf_token", "request_key", "version")
#: the session is a signed cookie (about 4 KB in all): a field longer than this is cut
MAX_VALUE = 200


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
) -> Response:
    """Keep ``form`` (as typed, or ``data``) and ``message`` for ``location``, and redirect there (303).

    ``status`` is what the page at ``location`` answers: 422 or 409 for a refusal, 200
    for a form that was changed without being saved (the ↑ seat buttons).
    """
    refusal = Refusal(status=status, message=message, form=form_name, version=version)
    if form is not None:
        pairs = data if data is not None else list(request.form.items(multi=True))
        refusal.data = [
            (name, value[:MAX_VALUE]) for name, value in pairs if name not in NOT_KEPT and isinstance(value, str)
        ]
        # from the fields themselves: a view may add an error after WTForms cached form.errors
        refusal.errors = {
            f.name: [str(e) for e in f.errors]
            for f in form
            if f.name != "csrf_token" and isinstance(f.errors, list) and f.errors
        }
        refusal.form_errors = [str(e) for e in form.form_errors]
    token = secrets.token_urlsafe(6)
    session[SESSION_KEY] = {"token": token, "path": location.split("?", 1)[0], **refusal.__dict__}
    return redirect(location + ("&" if "?" in location else "?") + "refused=" + token, code=303)


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
    kept = session.get(SESSION_KEY)
    token = request.args.get("refused")
    if not kept or not token or kept.get("token") != token or kept.get("path") != request.path:
        return None
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
