"""The standings every page of a night shows: its games' and its own ledger's, made once per version.

The table screen, the players' page, the next-game screen and the report all show them,
and every phone at a table asks for the same version right after a change.
"""

from __future__ import annotations

from dataclasses import replace

from companion.service import bank as bank_service
from companion import service
from companion.service import NightRow
from companion.games.web import SCREENS
from companion.night.standings import NightGameLine, Standings, standings


#: how many of the last actions the live pages list (the players' page, the table display)
RECENT = 6

#: what the players' page says of a night the group's tab settled part of (docs/group.md)
TAB_SETTLED = "Part of this night was settled through the group's tab: the report shows what remains to pay."


def standings_of(night: NightRow, recent: int = 6) -> Standings:
    """The standings of ``night`` at its version, computed once per version in each process.

    Every phone at a table asks for the same version right after a change.
    """
    what = f"standings/{recent}"
    kept = service.derived(what, night.id, night.version)
    if kept is not None:
        return kept
    play = service.play_for(night)
    current = play.current
    money = service.money_of(night)
    # no other night's name: these standings are the players' too, and a night's players
    # are not told what another night is called ("carried in from the previous night")
    earlier = tuple(
        NightGameLine(number, p.title, tuple(closing.net.items()), closing.note, current=False)
        for number, p in enumerate(play.played()[:-1], start=1)  # a game taken back was never played
        for closing in (p.close(),)
    )
    screens = SCREENS[current.game.kind]
    added = bank_service.night_extra(night)  # the Bonus Round's payments, the bank's counts
    st = standings(
        kind=screens.kind, parts=screens.parts_template, view=screens.view(current.state), state=current.state,
        closing_net=current.close().net, version=night.version, chip_value=money.chip_value,
        currency=money.currency, recent=recent, seated=play.seated, earlier=earlier, title=current.title,
        extra=added[1] if added is not None else None,
    )
    ledger = bank_service.ledger_of(night)
    if ledger.uses_bank:  # the table and the players' page say it in the Bank page's words
        st = replace(st, settles=ledger.settles_text, settle_on=ledger.settle_on)
    if ledger.settle_on == bank_service.BANK:  # the counts settle the night: the report's payments, or none yet
        state = bank_service.bank_state(night)
        st = replace(st, plan=state.plan or (), unsettled=bank_service.unsettled_text(night))
    if added is not None:  # the games and the night's own ledger add up to the standings (issue 20, item 4)
        st = replace(st, extra_line=(added[0], tuple((n, added[1].get(n, 0)) for n in play.seated)))
    if ledger.tab:  # the group's tab settled part of the night: "if settled now, you pay …" would be wrong
        st = replace(st, unsettled=TAB_SETTLED)
    paid = bank_service.paid_payments(night)
    if paid:  # a payment marked paid shows paid on the players' page too (issue 20, item 8)
        st = replace(st, paid=paid)
    service.keep_derived(what, night.id, night.version, st)
    return st
