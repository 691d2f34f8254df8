"""What a request keeps besides the nights: a refused form to show again, and a client's count against a brake.

Neither is a record of a night or a group (no version, no request key: a refusal records
nothing, and every attempt counts against a brake, a doubled tap too).  Each is one short unit of
work of its own, ``UnitOfWork(of_the_nights=False)``, whose commit the change watch does not hear of
(no night changed): the service's one commit point still commits them, and the web layer only asks.
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
from companion.service.uow import UnitOfWork

__all__ = ["count_against", "keep_refusal"]


def keep_refusal(path_digest: str, content: dict[str, Any], *, keep_seconds: int, max_kept: int) -> str:
    """Store a refused form's ``content`` for the page whose path has ``path_digest``; return its new token.

    Rows older than ``keep_seconds`` and beyond the newest ``max_kept`` are deleted in the same
    transaction, so nobody can fill the disk with refusals.  Nothing of the refused request is
    pending (a refusal records nothing): the unit ends its open read.
    """
    token = secrets.token_urlsafe(18)
    with UnitOfWork(of_the_nights=False) as uow:
        db.session.add(KeptRefusal(token=token, path_digest=path_digest, content=content))
        db.session.flush()
        db.session.execute(delete(KeptRefusal).where(KeptRefusal.created_at < utcnow() - timedelta(seconds=keep_seconds)))
        newest = db.session.scalar(select(func.max(KeptRefusal.id)))
        if newest is not None and newest > max_kept:
            db.session.execute(delete(KeptRefusal).where(KeptRefusal.id <= newest - max_kept))
        uow.commit()
    return token


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
