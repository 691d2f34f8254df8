"""A scorekeeper's phone in a loop: read the table, tap what fits (sometimes wrongly, sometimes twice), post.

Used by the concurrency soak, the crash test and the backup test.  Every answer is
sorted: accepted (303, the request key and the version it was made at are kept, to be
found in the stored log), refused (409 or 422, which must carry a message), unconfirmed (503 "busy":
like a lost answer, it may or may not be stored), not stored for a full disk (507, which must say so:
it must not be found in the log), or anything else, which is an error the tests fail on.
"""

from __future__ import annotations

import random
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from reliability.harness import Phone, Shown, parse_table_page, refusal_message

#: the message a stale screen gets; a doubled tap gets "Already recorded" on the next page
STALE = "changed since this screen was shown"
KEY_REUSED = "already submitted with different content"
#: a write the database could not take in time: not confirmed, safe to send again
BUSY = "busy and this was not confirmed"
#: a write that found the server's disk full (507): nothing of it was stored (issue 36, item 5)
DISK_FULL = "disk is full: nothing was recorded"


@dataclass
class Accepted:
    key: str
    version: int  # the table version the form was made at: the event must be seq version + 1
    kind: str  # the event kind it must be stored as
    names: tuple[str, ...]  # the names it recorded (Yes, challengers, winners), in any order


@dataclass
class PhoneLog:
    accepted: list[Accepted] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    in_flight: set[str] = field(default_factory=set)  # posted, no answer (the server died)


KIND_OF = {"declare": "declare", "challenge": "challenge", "showdown": "showdown", "undo": "void"}


def choose(shown: Shown, rng: random.Random, players: list[str]) -> tuple[str, dict[str, Any], tuple[str, ...], bool]:
    """(form, data, names, deliberately illegal) for what this screen asks."""
    roll = rng.random()
    if "undo" in shown.forms and roll < 0.08:
        return "undo", {}, (), False
    if roll > 0.96:  # a wrong tap: a winner nobody named, or a stranger
        if shown.phase == "showdown":
            outsiders = [p for p in players if p not in shown.winners]
            if outsiders:
                return "showdown", {"winner": rng.choice(outsiders)}, (), True
        return "declare", {"yes": ["Zed"], "confirm": "1"}, (), True
    if shown.phase == "declare":
        yes = [p for p in shown.yes_choices if rng.random() < 0.3]
        if not yes:
            return "declare", {"nobody": "1"}, (), False
        return "declare", {"yes": yes, "confirm": "1"}, tuple(yes), False
    if shown.phase == "challenge":
        challengers = [p for p in shown.challengers if rng.random() < 0.3]
        if not challengers or rng.random() < 0.5:
            return "challenge", {"nobody": "1"}, (), False
        return "challenge", {"challengers": challengers, "confirm": "1"}, tuple(challengers), False
    if len(shown.winners) >= 2 and rng.random() < 0.15:
        tied = rng.sample(shown.winners, 2)
        return "showdown", {"winners": tied, "tie": "1"}, tuple(tied), False
    winner = rng.choice(shown.winners)
    return "showdown", {"winner": winner}, (winner,), False


def unavailable(answer: Any, log: PhoneLog) -> bool:
    """A 503 as the outage tests expect it: ``Retry-After``, a message to try again, no traceback."""
    if answer.status != 503:
        return False
    log.counts["unavailable"] += 1
    if not answer.headers.get("retry-after", "").isdigit():
        log.errors.append("a 503 without Retry-After")
    if not refusal_message(answer) or "again" not in refusal_message(answer):
        log.errors.append(f"a 503 that does not say to try again: {answer.body[:200]}")
    if "Traceback" in answer.body or "sqlalchemy" in answer.body.lower():
        log.errors.append(f"a 503 that shows the error: {answer.body[:200]}")
    return True


def disk_full(answer: Any, log: PhoneLog) -> bool:
    """A 507 as the full-disk test expects it: it says the disk is full and nothing was recorded, no traceback."""
    if answer.status != 507:
        return False
    log.counts["disk_full"] += 1
    if DISK_FULL not in answer.body.replace("&#39;", "'"):
        log.errors.append(f"a 507 that does not say the disk is full: {answer.body[:200]}")
    if "Traceback" in answer.body or "sqlalchemy" in answer.body.lower():
        log.errors.append(f"a 507 that shows the error: {answer.body[:200]}")
    return True


def record_loop(port_of: Any, path: str, stop: threading.Event | float, log: PhoneLog, seed: int,
                players: list[str], phone: Phone | None = None, double_tap: float = 0.08,
                outages: bool = False) -> None:
    """Record until ``stop`` (an Event, or a monotonic deadline) or until the server goes away.

    With ``outages`` (the database goes away under the server), a 503 that says to try
    again is counted as "unavailable" and the phone tries again shortly, as a person would;
    a 507 for a full disk too, and its tap is then known not to be stored.
    """
    rng = random.Random(seed)
    phone = phone or Phone(port_of())

    def done() -> bool:
        return stop.is_set() if isinstance(stop, threading.Event) else time.monotonic() >= stop

    expect_repeat = False
    try:
        while not done():
            try:
                page = phone.get(path)
            except (ConnectionError, OSError):
                return  # the server is gone (the crash test)
            if outages and unavailable(page, log):
                time.sleep(0.05)
                continue
            if page.status != 200:
                log.errors.append(f"GET table: {page.status}")
                return
            if expect_repeat:
                if "Already recorded" not in page.body:
                    log.errors.append("a doubled tap was not answered 'Already recorded'")
                expect_repeat = False
            shown = parse_table_page(page.body)
            form, data, names, illegal = choose(shown, rng, players)
            stamp = shown.forms.get(form) or shown.forms[shown.phase]  # a wrong tap may use another form's stamp
            body = {**stamp, **data}
            log.counts["attempted"] += 1
            log.in_flight.add(stamp["request_key"])
            try:
                answer = phone.post(f"{path}/{form}", body)
            except (ConnectionError, OSError):
                return  # no answer: in flight when the server died; it may or may not be stored
            # (in an outage, the page a refusal is shown on may itself answer 503: a GET's "try again")
            if outages and disk_full(answer, log):
                log.in_flight.discard(stamp["request_key"])  # not stored: found in the log, it is unexplained
                time.sleep(0.05)
                continue
            if answer.status == 503 and (BUSY in answer.body or outages):
                log.counts["busy_unconfirmed"] += 1  # may or may not be stored, like a lost answer
                if outages:
                    unavailable(answer, log)
                    time.sleep(0.05)
                continue
            log.in_flight.discard(stamp["request_key"])
            if answer.status == 303:
                if illegal:
                    log.errors.append(f"an illegal {form} {data} was accepted")
                log.accepted.append(Accepted(stamp["request_key"], int(stamp["version"]), KIND_OF[form], names))
                log.counts["accepted"] += 1
                if rng.random() < double_tap:  # the same tap again: must be answered, recorded once
                    log.counts["attempted"] += 1
                    try:
                        again = phone.post(f"{path}/{form}", body)
                    except (ConnectionError, OSError):
                        return
                    if outages and (unavailable(again, log) or disk_full(again, log)):
                        pass  # the database went away between the two taps: the first is recorded
                    elif again.status != 303:
                        log.errors.append(f"a doubled tap got {again.status}")
                    else:
                        log.counts["doubled_answered_once"] += 1
                        expect_repeat = True
            elif answer.status in (409, 422):
                message = refusal_message(answer)
                if not message:
                    log.errors.append(f"a {answer.status} without a message")
                elif answer.status == 409 and STALE not in answer.body and KEY_REUSED not in answer.body:
                    log.errors.append(f"a 409 that does not say the table changed: {message[:80]}")
                if answer.status == 422 and not illegal:
                    log.errors.append(f"a legal {form} {data} at version {stamp['version']} was refused: {message}")
                log.counts["refused_stale" if answer.status == 409 else "refused_illegal"] += 1
            else:
                log.errors.append(f"POST {form}: {answer.status}")
                log.counts["errors"] += 1
    except Exception:  # noqa: BLE001 - a phone that breaks fails the test, with its traceback
        log.errors.append(traceback.format_exc())
    finally:
        phone.close()


def check_accepted(accepted: list[Accepted], events: list[dict[str, Any]], in_flight: set[str] = frozenset()) -> dict[str, int]:
    """Every accepted submit is in the log once, where its version says; nothing else is.

    Returns counts: lost, duplicated, misplaced, unexplained (events no phone was told were recorded).
    """
    by_key: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        by_key.setdefault(event["request_key"], []).append(event)
    lost = duplicated = misplaced = 0
    told = set()
    for submit in accepted:
        told.add(submit.key)
        found = by_key.get(submit.key, [])
        if not found:
            lost += 1
            continue
        if len(found) > 1:
            duplicated += 1
        event = found[0]
        payload = event["payload"]
        names = payload.get("yes") or payload.get("challengers") or payload.get("winners") or []
        if event["seq"] != submit.version + 1 or event["kind"] != submit.kind or sorted(names) != sorted(submit.names):
            misplaced += 1
    unexplained = sum(1 for key in by_key if key not in told and key not in in_flight)
    return {"lost": lost, "duplicated": duplicated, "misplaced": misplaced, "unexplained": unexplained}
