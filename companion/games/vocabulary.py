"""What a game's part of the end-of-night report is called: its columns and the words of its lines.

The report (:mod:`companion.report`) counts every game's chips the same way, as
:class:`~companion.report.model.Figures`: chips a player paid into a pot or pool, chips
passed between two players, chips taken out of a pot or pool, what the game's
closing gave back out of a pot or pool left in play, and (Napalm only) tokens.
What those are *called* is the game's: Napalm's are antes, side bets, pots and
tokens; Nap's are bids and a pool; a pot game's antes, pots and sales.  So each
game kind declares a :class:`ReportVocabulary` as data (its ``report_vocabulary``)
and the report's pages, its CSV and its JSON say only those words.  A game that
declares none gets :data:`NEUTRAL`, words that fit any game read from its transfers.

A game of points paid between players, with no pot (a Rummy-like game), declares only those::

    POINTS = ReportVocabulary(
        columns=(Column("between", "Points", "points won and lost"),),
        paid_in=None, between=Between("points", "points_won", "points_lost", "points", "point"),
        taken_out=None, returned=None, pot=None,
    )

A figure a game never has (a game without a pot takes nothing out of one) is
``None`` in its vocabulary: the report shows no column, no line and no key for
it, and refuses a game whose records hold one (its declaration would be wrong).

Pure: no Flask, no database; it imports nothing of the app, so a game and the
report layer can both import it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: what a :class:`Column` can show, each a figure of :class:`~companion.report.model.Figures`:
#: ``paid_in`` (−antes), ``between`` (+won −lost), ``taken_out`` (pots taken and what the
#: closing gave back), ``through_pot`` (the net of those two: what went through the pot or
#: pool), ``tokens``
SHOWS = ("paid_in", "between", "taken_out", "through_pot", "tokens")


@dataclass(frozen=True)
class Column:
    """One column of a game's table in the report's "player by player" cards."""

    shows: str  # one of :data:`SHOWS`
    head: str  # the column's head ("Antes", "Tok.")
    says: str  # what it holds, in the sentence above the cards ("antes paid")
    title: str = ""  # the head written out, when the head is short for it ("tokens" for "Tok.")

    def __post_init__(self) -> None:
        if self.shows not in SHOWS:
            raise ValueError(f"a report column shows one of {', '.join(SHOWS)}, not {self.shows!r}")


@dataclass(frozen=True)
class Term:
    """A figure in words: its ``key`` in the CSV and JSON, its ``phrase`` in a sentence ("antes −8")."""

    key: str
    phrase: str


@dataclass(frozen=True)
class Between:
    """Chips passed from one player to another, in words: Napalm's side bets, Nap's bids, a pot game's sales.

    ``key`` is the pair-by-pair payments' part ("side_bets"), ``won_key`` and ``lost_key``
    each player's totals ("side_bets_won"); ``phrase`` the plural in a sentence ("side bets
    +6 from Dan"), ``one`` the singular ("had no side bet against each other"); ``won`` and
    ``lost`` the verbs of a player's summary ("won 6 from Dan; lost 2 to Ann").
    """

    key: str
    won_key: str
    lost_key: str
    phrase: str
    one: str
    won: str = "won"
    lost: str = "lost"


@dataclass(frozen=True)
class ReportVocabulary:
    """A game's part of the report in its own words (see the module's docstring).

    ``pot`` is what the game calls the chips in the middle ("pot", "pool"), None when it
    keeps none: the report then shows no unfinished pot and no "through the pot".
    ``tokens`` says whether the game counts tokens (Napalm).
    """

    columns: tuple[Column, ...]
    paid_in: Term | None
    between: Between | None
    taken_out: Term | None
    returned: Term | None
    pot: str | None
    tokens: bool = False

    def __post_init__(self) -> None:
        needs = {
            "paid_in": ("chips paid in", self.paid_in is not None),
            "between": ("chips between players", self.between is not None),
            "taken_out": ("chips taken out", self.taken_out is not None),
            "through_pot": ("a pot or pool", self.pot is not None),
            "tokens": ("tokens", self.tokens),
        }
        for column in self.columns:
            what, has = needs[column.shows]
            if not has:
                raise ValueError(f"a column shows {what}, which these words leave out")

    def legend(self) -> str:
        """What the columns hold, as the sentence above the cards says it ("antes paid, …, and the net")."""
        return ", ".join([c.says for c in self.columns] + ["and the net"]) if self.columns else "the net"

    def lacks(self, antes: int, between: int, taken: int, returned: int, tokens: int) -> str | None:
        """The first figure these words leave out that is not zero (its name), else None."""
        for name, chips, term in (
            ("paid in", antes, self.paid_in),
            ("between players", between, self.between),
            ("taken out", taken, self.taken_out),
            ("returned", returned, self.returned),
        ):
            if chips and term is None:
                return name
        if tokens and not self.tokens:
            return "tokens"
        return None


#: the words of a game read only from its transfers that declares none of its own: neutral,
#: for any game (chips paid in, won and lost between players, taken out of a pot or pool)
NEUTRAL = ReportVocabulary(
    columns=(
        Column("paid_in", "In", "chips paid into a pot or pool"),
        Column("between", "Won/lost", "chips won from and lost to other players"),
        Column("taken_out", "Out", "chips taken out of a pot or pool (what was left in one at the end included)"),
    ),
    paid_in=Term("paid_in", "stakes"),
    between=Between("direct", "won_from_players", "lost_to_players", "direct payments", "direct payment"),
    taken_out=Term("taken_out", "taken out"),
    returned=Term("returned", "returned at the end"),
    pot="pot",
)

#: the words of a game that moves no chips at the table (poker with real betting: the chips on
#: the table settle each pot, and the bank's counts give the night's results)
NO_CHIPS = ReportVocabulary(columns=(), paid_in=None, between=None, taken_out=None, returned=None, pot=None)

__all__ = ["NEUTRAL", "NO_CHIPS", "SHOWS", "Between", "Column", "ReportVocabulary", "Term"]
