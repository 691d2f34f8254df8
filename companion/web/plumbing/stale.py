"""A submit made on a screen another phone moved on from, refused in words (issue 39, item 3).

Two keeper phones tapping the same stage at once: the unit of work records one and refuses the other
(:class:`~companion.service.StaleTable`, the version compare-and-set).  The refused phone is told what the other
phone recorded, as the history says it ("Ben's phone recorded first: Ante 1 each, pot 4. Ann (dealer) alone
said Yes."), and is answered with the table
as it is now (each caller redirects to its page, which shows it): not a bare "the table changed".
"""

from __future__ import annotations

from companion import service
from companion.service import NightRow


def refusal_words(refusal: Exception, night: NightRow, had_version: int | None) -> str:
    """What a refused submit is told: for a stale screen made at ``had_version``, what was recorded since and by
    which phone; for anything else (a request key used for another form), its own message."""
    if not isinstance(refusal, service.StaleTable) or had_version is None:
        return str(refusal)
    said = what_was_recorded(night, had_version)
    if not said:
        return str(refusal)
    return f"The table changed since this screen was shown. {said} Nothing from this screen was recorded; the table below is as it is now."


def what_was_recorded(night: NightRow, since: int) -> str:
    """ "Ben's phone recorded first: …; The first phone recorded first: …": the newest records after ``since``,
    each phone's in a run, as the history says them (``service.recorded_since``)."""
    runs: list[tuple[str, list[str]]] = []
    for recorded_by, summary in service.recorded_since(night, since):
        if runs and runs[-1][0] == recorded_by:
            runs[-1][1].append(summary)
        else:
            runs.append((recorded_by, [summary]))
    sentences = []
    for recorded_by, summaries in runs:
        who = service.recorded_by_words(recorded_by)
        words = "; ".join(s.rstrip(".") for s in summaries if s) or "a record"
        sentences.append(f"{who[:1].upper()}{who[1:]} recorded first: {words}.")
    more = night.version - since - sum(len(s) for _, s in runs)
    if sentences and more > 0:
        sentences.insert(0, f"{more} more record{'s' if more > 1 else ''} before these.")
    return " ".join(sentences)
