"""What a request keeps besides the nights: a refused form to show again, and a client's count against a brake.

Neither is a record of a night or a group (no version, no request key: a refusal records
nothing, and every attempt counts against a brake, a doubled tap too).  Each is one short unit of
work of its own, ``UnitOfWork(of_the_nights=False)``, whose commit the change watch does not hear of
(no night changed): the service's one commit point still commits them, and the web layer only asks.
It reads them back here too (a kept refusal by its token, a client's wait under a brake's
:class:`~companion.db.brakes.Limit`, which the service hands the web layer to name its brakes by).
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from companion.db import brakes
from companion.db.brakes import MAX_CLIENT, Limit
from companion.db.models import ClientCounter, KeptRefusal, utcnow
from companion.extensions import db
from companion.service.uow import UnitOfWork, end_reads

__all__ = ["Limit", "count_against", "keep_refusal", "kept_refusal", "retry_after"]


def keep_refusal(
    path_digest: str,
    content: dict[str, Any],
    *,
    client: str,
    replaces: str | None = None,
    keep_seconds: int,
    max_kept: int,
    max_per_client: int,
) -> str:
    """Store a refused form's ``content`` for the page whose path has ``path_digest``, made by ``client``
    (its address); return its new token.

    In the same transaction the rows nobody can be shown any more go: those older than ``keep_seconds``,
    and the one ``replaces`` names (the token the same browser held: it sees only its newest).  Then what
    is kept is bounded, so nobody can fill the disk with refusals, and so that one client's refusals push
    out only its own (issue 36, item 4): a client keeps its newest ``max_per_client``, and beyond
    ``max_kept`` in all the oldest rows of the client holding the most go (of equals, the one that
    refused last).  Nothing of the refused request is pending (a refusal records nothing): the unit
    ends its open read.
    """
    token = secrets.token_urlsafe(18)
    client = client[:MAX_CLIENT]
    with UnitOfWork(of_the_nights=False) as uow:
        db.session.add(KeptRefusal(token=token, path_digest=path_digest, content=content, client=client))
        db.session.flush()
        db.session.execute(delete(KeptRefusal).where(KeptRefusal.created_at < utcnow() - timedelta(seconds=keep_seconds)))
        if replaces:
            db.session.execute(delete(KeptRefusal).where(KeptRefusal.token == replaces))
        _keep_newest(client, max_per_client)
        total = db.session.scalar(select(func.count()).select_from(KeptRefusal)) or 0
        if total > max_kept:
            heaviest = db.session.execute(
                select(KeptRefusal.client, func.count().label("held"))
                .group_by(KeptRefusal.client)
                .order_by(func.count().desc(), func.max(KeptRefusal.id).desc())
                .limit(1)
            ).one()
            _keep_newest(heaviest.client, max(0, heaviest.held - (total - max_kept)))
        uow.commit()
    return token


def kept_refusal(token: str, *, keep_seconds: int) -> tuple[str, dict[str, Any]] | None:
    """(the digest of its page's path, its content) of the refusal kept under ``token``, or None: none is, or
    it is older than ``keep_seconds`` (a row not yet deleted is not shown any more)."""
    row = db.session.scalar(
        select(KeptRefusal).where(
            KeptRefusal.token == token, KeptRefusal.created_at >= utcnow() - timedelta(seconds=keep_seconds)
        )
    )
    return None if row is None else (row.path_digest, row.content)


def _keep_newest(client: str, count: int) -> None:
    """Delete ``client``'s kept refusals but its newest ``count``."""
    last_kept = (
        select(KeptRefusal.id).where(KeptRefusal.client == client).order_by(KeptRefusal.id.desc()).offset(count).limit(1)
    )
    oldest_gone = db.session.scalar(last_kept)
    if oldest_gone is not None:
        db.session.execute(delete(KeptRefusal).where(KeptRefusal.client == client, KeptRefusal.id <= oldest_gone))


def count_against(limit: Limit, client: str) -> None:
    """Count one event of ``limit``'s kind for ``client`` (its bucket's hits + 1), and forget buckets two
    windows old, in its own short transaction (it ends the request's open read)."""
    at = brakes.now()  # the one clock every process shares (tests move it)
    values = {"kind": limit.kind, "client": client[:MAX_CLIENT], "bucket": int(limit.bucket_of(at)), "hits": 1}
    insert = postgresql_insert if db.engine.dialect.name == "postgresql" else sqlite_insert
    statement = insert(ClientCounter).values(**values).on_conflict_do_update(
        index_elements=["kind", "client", "bucket"], set_={"hits": ClientCounter.hits + 1}
    )
    with UnitOfWork(of_the_nights=False) as uow:  # nothing of the request is pending: it ends its read
        db.session.execute(statement)
        db.session.execute(
            delete(ClientCounter).where(ClientCounter.kind == limit.kind, ClientCounter.bucket < at - 2 * limit.window)
        )
        uow.commit()


def retry_after(limit: Limit, client: str) -> int | None:
    """Seconds until ``client`` may do ``limit``'s kind of thing again, or None while it is under the limit.

    Asked first thing in a view: the read ends here, so nothing is held while the form is read and
    checked (and a count against the brake, :func:`count_against`, begins a write of its own)."""
    wait = limit.retry_after(client)
    end_reads()
    return wait
