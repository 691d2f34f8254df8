"""The report's values: what the pages, the downloads and a player's history all read.

One job: to say what a night's report *is*, as frozen values (each player's :class:`Figures` per
game line, the :class:`GameLine` s, both payment plans, the :class:`PotClosing`, the whole
:class:`Report`), and to read them (a player's line, a payment still to make, the game lines
grouped by their words).  Nothing here computes a report: the game parts
(:mod:`companion.report.parts`) and the settle-up (:mod:`companion.report.payments`) build one,
the downloads (:mod:`companion.report.export`) write one.  Kept apart so that each of those reads
the same types and none of them has to import another to know what a report holds.

Money is ``chips x chip value`` as an exact :class:`~decimal.Decimal`.  A chip value has at most
four decimal places (:mod:`companion.money.amounts`), and
:func:`~companion.money.amounts.format_money` shows up to four, so no amount is ever rounded on
the way to the screen: the payments shown add up, to the last digit shown, to each player's net
money.

Pure (no Flask, no database) and game-agnostic: it imports no game package.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from companion.money.amounts import signed, value_text
from companion.money.settle import Payment
from companion.games.vocabulary import NEUTRAL, ReportVocabulary

__all__ = [
    "VIEWS",
    "Figures",
    "GameLine",
    "GamePart",
    "LedgerShare",
    "NightTab",
    "PairLine",
    "PlanLine",
    "PlayerReport",
    "PotClosing",
    "Report",
    "Section",
    "TabLine",
    "TabRest",
    "night_words",
    "ordinal",
    "sum_figures",
]

#: the two ways of settling up a report shows: the fewest payments, and pair by pair
VIEWS = ("plan", "pairwise")

# --- one player's figures ---------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """One player's chips in one game, or over the whole night.

    The figures are what chips did, whatever the game calls them (its
    :class:`~companion.games.vocabulary.ReportVocabulary` names them): ``antes`` are
    chips paid into a pot or pool, ``won_from`` / ``lost_to`` chips passed between
    two players, ``pots`` chips taken out of a pot or pool, all moved and never
    negative; ``unfinished`` is what the game's closing gives back to this player out
    of a pot or pool left in play at the end of the night.
    """

    antes: int = 0
    won_from: tuple[tuple[str, int], ...] = ()  # (opponent, chips), in seat order
    lost_to: tuple[tuple[str, int], ...] = ()
    pots: int = 0
    unfinished: int = 0
    tokens: int = 0
    #: what the night's own ledger adds beside the games (the Bonus Round's payments, or on chip
    #: counts the counts beyond the games), never shown as antes or pots; ``ledger_label`` names it
    ledger: int = 0
    ledger_label: str = ""

    @property
    def side_won(self) -> int:
        return sum(chips for _, chips in self.won_from)

    @property
    def side_lost(self) -> int:
        return sum(chips for _, chips in self.lost_to)

    @property
    def side_net(self) -> int:
        return self.side_won - self.side_lost

    @property
    def pot_net(self) -> int:
        """What went through the pot: pots taken and returned, minus antes."""
        return self.pots + self.unfinished - self.antes

    @property
    def net(self) -> int:
        return self.pot_net + self.side_net + self.ledger

    def with_opponent(self, other: str) -> tuple[int, int]:
        """(chips won from ``other``, chips lost to ``other``) in side bets."""
        return dict(self.won_from).get(other, 0), dict(self.lost_to).get(other, 0)

    def parts(self, words: ReportVocabulary) -> list[str]:
        """The non-zero parts of :attr:`net`, as short phrases in ``words`` ("antes −8", "side bets +6 from Dan")."""
        out = []
        if self.antes:
            out.append(f"{_phrase(words.paid_in, 'paid in')} {signed(-self.antes)}")
        between = words.between.phrase if words.between is not None else "chips"
        for name, chips in self.won_from:
            out.append(f"{between} {signed(chips)} from {name}")
        for name, chips in self.lost_to:
            out.append(f"{between} {signed(-chips)} to {name}")
        if self.pots:
            out.append(f"{_phrase(words.taken_out, 'taken out')} {signed(self.pots)}")
        if self.unfinished:
            out.append(f"{_phrase(words.returned, 'returned')} {signed(self.unfinished)}")
        if self.ledger:
            out.append(f"{self.ledger_label or 'the night'} {signed(self.ledger)}")
        return out


def _phrase(term: Any, fallback: str) -> str:
    """A term's phrase; ``fallback`` for a figure the words leave out (never shown: it is zero)."""
    return term.phrase if term is not None else fallback


def sum_figures(figures: Iterable[Figures], order: Sequence[str]) -> Figures:
    """The sum of ``figures`` (a player's over the night, or over a section), opponents in ``order``."""
    won: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    antes = pots = unfinished = tokens = ledger = 0
    label = ""
    for f in figures:
        antes += f.antes
        pots += f.pots
        unfinished += f.unfinished
        tokens += f.tokens
        ledger += f.ledger
        label = label or f.ledger_label
        won.update(dict(f.won_from))
        lost.update(dict(f.lost_to))
    return Figures(
        antes=antes,
        won_from=tuple((n, won[n]) for n in order if won[n]),
        lost_to=tuple((n, lost[n]) for n in order if lost[n]),
        pots=pots,
        unfinished=unfinished,
        tokens=tokens,
        ledger=ledger,
        ledger_label=label,
    )


@dataclass(frozen=True)
class PlayerReport:
    """One player's line in the report: per game, in total, in chips and money."""

    name: str
    seat: int  # 1-based
    games: tuple[Figures, ...]  # one per :attr:`Report.games`, in the same order
    total: Figures
    games_won: int
    net_chips: int  # the closing balance (== total.net)
    money: Decimal  # exact
    money_text: str
    stack_change: int  # how the chips in front of the player changed (what the bank's count checks)


@dataclass(frozen=True)
class GameLine:
    number: int
    winner: str | None  # None: unfinished at the end of the night (or when the next game started)
    pot: int  # the pot the winner took, or the pot left in the unfinished game
    hands: int  # hands played (for an unfinished game: the hand in progress)
    #: in a night of several games: which of the night's games this is part of (0: the only one)
    night_game: int = 0
    title: str = ""  # that game's name ("Napalm")
    choice_text: str = ""  # for an unfinished game in a night of several: what its setting did
    #: for an unfinished game: whether its last hand had started (a stage recorded in it);
    #: "unfinished at hand 2" only then, else "unfinished after 1 hand" (issue 14, item 8)
    started: bool = True
    #: a game broken down by its records (:func:`transfer_part`): what happened in it, in words
    #: (its line then says only this)
    text: str = ""
    #: such a game: each live record's summary, in order ("Cat made 2: +6; …")
    records: tuple[str, ...] = ()
    #: not a game: what the night's own ledger adds (the Bonus Round, the bank's counts)
    extra: bool = False
    #: the words of the game this line is part of (its kind's ``report_vocabulary``)
    words: ReportVocabulary = NEUTRAL
    #: the game's closing, on a line of its own: the chips it settled between players when it
    #: stopped (points turned into chips), said in the game's words (``text``: its note)
    closing: bool = False
    #: a line of the night's own ledger: the payments in it made player to player, (payer, payee, chips)
    #: (the Bonus Round's), and what made them (``direct_title``); the pair-by-pair view pays them as made
    direct: tuple[tuple[str, str, int], ...] = ()
    direct_title: str = ""
    #: such a line: what it is, in its own words ("each count less the chips bought, less the games above")
    what: str = ""

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def short(self) -> str:
        """The line's name in a narrow column: "2·1", "3", "Bank", "Bonus"."""
        if self.extra:
            return self.title.removeprefix("The ").split()[0].capitalize()
        if self.closing:
            return f"{self.night_game}·end"
        if self.night_game and not self.number:
            return str(self.night_game)
        if self.night_game:
            return f"{self.night_game}·{self.number}"
        return str(self.number)

    @property
    def label(self) -> str:
        """"Game 2"; in a night of several games "2nd game (Napalm), game 1"."""
        if self.extra:
            return self.title
        if not self.night_game:
            return f"Game {self.number}"
        if self.closing:
            return f"{ordinal(self.night_game)} game ({self.title}), at its close"
        if not self.number:  # a game of the night with no games to a target inside it
            return f"{ordinal(self.night_game)} game ({self.title})"
        return f"{ordinal(self.night_game)} game ({self.title}), game {self.number}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- payments ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanLine:
    """One payment of the fewest-payments plan, with why it is what it is."""

    payer: str
    payee: str
    chips: int
    money: Decimal
    money_text: str
    paid: bool
    why: tuple[str, ...]  # sentences


@dataclass(frozen=True)
class LedgerShare:
    """What one line of the night's own ledger makes a pair-by-pair payment: ``chips`` the payer owes the payee
    from it (negative: the payee owes them, netted), under the line's ``title`` ("The bank", "Bonus Round").

    ``direct``: payments made player to player (the Bonus Round's): ``paid``, what the payer paid the payee
    in them, ``back`` what the payee paid the payer; else the line is squared in the fewest payments and
    ``what`` says what it is, in its own words."""

    title: str
    chips: int
    direct: bool = False
    paid: int = 0
    back: int = 0
    what: str = ""


@dataclass(frozen=True)
class PairLine:
    """One payment of the pair-by-pair plan: side bets, pot shares and the night's own lines between two players."""

    payer: str
    payee: str
    chips: int
    money: Decimal
    money_text: str
    paid: bool
    side_bets: int  # chips the payer owes the payee from side bets (may be negative)
    through_pot: int  # chips the payer owes the payee from the games' pots (may be negative)
    why: tuple[str, ...]
    #: what the night's own lines make of it (the Bonus Round's payments, the bank's counts), each apart
    ledger: tuple[LedgerShare, ...] = ()


@dataclass(frozen=True)
class TabLine:
    """One record of what the group's tab settled of the night, as the report says it.

    ``amount`` is in the night's unit (its currency, or chips on a chips-only night): above zero
    ``player`` paid off part of what they owed here, below zero received part of what they were owed;
    ``payer``, ``payee`` and ``ref`` name the tab's payment; an offset (``payer == payee``) set the
    player's balance here against another night, no money moving."""

    player: str
    amount: Decimal
    amount_text: str  # its size, in the night's unit ("5.00 EUR", "12 chips")
    payer: str
    payee: str
    ref: str

    @property
    def offset(self) -> bool:
        return self.payer == self.payee

    @property
    def text(self) -> str:
        """"Ann paid off 5.00 EUR (Ann's payment to Cat, ref TAB-7)": the line under the tab's heading."""
        if self.offset:
            side = "owed" if self.amount > 0 else "were owed"
            return f"{self.player}: {self.amount_text} of what they {side} here set against another night (ref {self.ref})"
        done = "paid off" if self.amount > 0 else "received"
        return f"{self.player} {done} {self.amount_text} ({self.payer}'s payment to {self.payee}, ref {self.ref})"


@dataclass(frozen=True)
class TabRest:
    """What is left of the night that the table cannot mark paid: ``payer`` owes it and ``payee`` (None: the
    group's tab, when nobody at this night is owed it) is owed it, but not as a whole number of chips, or
    not to anyone seated here.  It settles through the group's tab."""

    payer: str | None
    payee: str | None
    amount: Decimal
    amount_text: str


@dataclass(frozen=True)
class NightTab:
    """The night's settle-up once the group's tab has settled part of it (:mod:`companion.report.tab`).

    ``records``: what the tab settled, in the order appended; ``balances``: each player's balance
    still open, in the night's unit (what the plan gives or asks − what was marked paid + what the tab
    cleared; above zero they are owed it); ``offers``: the fewest payments over what remains that the
    table may *Mark paid* (whole chips, each within what its payer owes and its payee is owed);
    ``rest``: what remains beyond them, to settle through the group's tab."""

    records: tuple[TabLine, ...]
    balances: dict[str, Decimal]
    offers: tuple[PlanLine, ...]
    rest: tuple[TabRest, ...]

    @property
    def settled(self) -> bool:
        """Whether every balance on the night is zero."""
        return not any(self.balances.values())


@dataclass(frozen=True)
class PotClosing:
    """The night's closing as the report shows it: the balances, and what became of a pot left in play.

    A game's report part makes it from its own closing (:meth:`GameKind.close`, or its own
    richer one); the report layer only reads it.  ``net`` are the closing balances (they
    sum to minus ``carried``); ``pot`` the chips left in the game at the table; ``shares``
    what each player receives from that pot tonight; ``carried`` the chips set aside for
    the next night and ``stakes`` each player's chips in that pot (so
    :attr:`carried_shares` is who owns what is carried); ``note`` says it in words.
    ``choice`` is the word the JSON export writes for the setting that decided the pot
    ("return_antes": each stake goes back to whoever put it in, as a game's own rules
    do); ``setting_text`` is that setting in words, "" when the game's own rules decided;
    ``carries`` whether it sets the pot aside for the next night.
    """

    pot: int
    net: dict[str, int]
    shares: dict[str, int]
    carried: int
    note: str
    stakes: dict[str, int] = field(default_factory=dict)
    choice: str = "return_antes"
    setting_text: str = ""
    carries: bool = False

    @property
    def carried_shares(self) -> dict[str, int]:
        """Who the carried chips belong to (the next night's ``carried_in``); {} when nothing is carried."""
        if not self.carried:
            return {}
        return {name: chips for name, chips in self.stakes.items() if chips and not self.shares.get(name)}


@dataclass(frozen=True)
class Section:
    """Game lines of the report in a row that share their words: one table per player card.

    ``lines`` index :attr:`Report.games` (a line of the night's own ledger joins the section
    before it); ``title`` names its games ("Napalm", "Pool Nap, Nap").
    """

    words: ReportVocabulary
    lines: tuple[int, ...]
    title: str


@dataclass(frozen=True)
class Report:
    """A night's whole report: each player's line, the game lines, the closing and both payment plans.

    Built by :func:`~companion.report.payments.report_from_part`; read by the pages, by the
    downloads (:mod:`companion.report.export`) and by a player's history, so they cannot disagree.
    """

    name: str
    players: tuple[PlayerReport, ...]  # in seat order
    games: tuple[GameLine, ...]
    chip_value: Decimal
    currency: str
    closing: PotClosing
    choice_text: str  # what the setting that decided the unfinished pot says, in words ("" when none did)
    plan: tuple[PlanLine, ...]
    pairwise: tuple[PairLine, ...]
    recorded: tuple[Payment, ...]  # every "paid" event, in the order recorded
    unmatched_plan: tuple[Payment, ...]  # recorded payments that mark no line of the plan
    unmatched_pairwise: tuple[Payment, ...]  # … no line of the pairwise list
    remaining: tuple[Payment, ...]  # what settles the rest once every recorded payment counts
    #: the pot carried in from the previous night: (contributor, chips) in seat order, counted
    #: in the first game's antes
    carried_in: tuple[tuple[str, int], ...] = ()
    #: the night's words, for its totals and its payments: its games' when they all say the same
    #: (:func:`night_words`), else neutral ones
    words: ReportVocabulary = NEUTRAL
    #: what the group's tab settled of the night, and what remains (None: nothing settled through it;
    #: then the plan and the pair-by-pair lines are what *Mark paid* offers, as always)
    tab: NightTab | None = None

    @property
    def carried_in_total(self) -> int:
        return sum(chips for _, chips in self.carried_in)

    # --- reading ---

    def player(self, name: str) -> PlayerReport:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def money(self, chips: int) -> str:
        return value_text(chips, self.chip_value, self.currency)

    def lines(self, view: str) -> tuple[PlanLine, ...] | tuple[PairLine, ...]:
        return self.pairwise if view == "pairwise" else self.plan

    def unmatched(self, view: str) -> tuple[Payment, ...]:
        """Recorded payments that mark no line of ``view`` (the table changed since, or the other view)."""
        return self.unmatched_pairwise if view == "pairwise" else self.unmatched_plan

    def offers(self, view: str) -> tuple[PlanLine, ...] | tuple[PairLine, ...]:
        """The payments *Mark paid* may offer in ``view``: its lines, or, once the group's tab settled part of the
        night, the fewest payments over what remains (whatever the view: a line of the night's own plan
        may be what the tab already settled)."""
        return self.tab.offers if self.tab is not None else self.lines(view)

    def find(self, view: str, payer: str, payee: str, chips: int) -> PlanLine | PairLine | None:
        """The first payment *Mark paid* offers in ``view`` with these values, not yet paid, if any."""
        for line in self.offers(view):
            if (line.payer, line.payee, line.chips) == (payer, payee, chips) and not line.paid:
                return line
        return None

    @property
    def settled(self) -> bool:
        """Whether the recorded payments (and the group's tab, if it settled part of the night) square everyone."""
        return self.tab.settled if self.tab is not None else not self.remaining

    @property
    def total_money(self) -> Decimal:
        return sum((p.money for p in self.players), Decimal(0))

    # --- in the games' words ---

    def sections(self) -> tuple[Section, ...]:
        """The game lines grouped into runs that share their words, in the night's order.

        A line with no figures to show (the night's own ledger, a game that moves no chips at the
        table) joins the run before it, its figure under Net only."""
        out: list[tuple[ReportVocabulary, list[int], list[str]]] = []
        for i, line in enumerate(self.games):
            if (line.extra or not line.words.columns) and out:
                out[-1][1].append(i)
                if not line.extra and line.title and line.title not in out[-1][2]:
                    out[-1][2].append(line.title)
                continue
            words = self.words if line.extra else line.words
            if not out or out[-1][0] != words:
                out.append((words, [], []))
            out[-1][1].append(i)
            if not line.extra and line.title and line.title not in out[-1][2]:
                out[-1][2].append(line.title)
        return tuple(Section(words, tuple(lines), ", ".join(titles)) for words, lines, titles in out)

    def total_of(self, player: PlayerReport, section: Section) -> Figures:
        """``player``'s figures summed over the lines of ``section``."""
        return sum_figures((player.games[i] for i in section.lines), [p.name for p in self.players])

    @property
    def pot_word(self) -> str | None:
        """What the night's games call the chips in the middle ("pot", "pool"); None: no game of it keeps any."""
        return self.words.pot


# --- one game's share -------------------------------------------------------------------


@dataclass(frozen=True)
class GamePart:
    """One game's share of a report: its players' figures, its game lines, its closing.

    A game that declares its own (``has_report_part``) makes it in the ``report`` module of its
    folder; any other gets :func:`~companion.report.parts.transfer_part`;
    :func:`~companion.report.parts.build_night_report` adds the parts up.
    """

    players: tuple[str, ...]
    figures: dict[str, tuple[Figures, ...]]  # per player, one per game line
    games_won: dict[str, int]
    stack_change: dict[str, int]
    games: tuple[GameLine, ...]
    closing: PotClosing
    carried_in: dict[str, int]


def night_words(games: Sequence[ReportVocabulary]) -> ReportVocabulary:
    """The words of a night of ``games`` (each its game's words): theirs when they are all the same,
    else neutral ones, with the pot called as the games with one call it ("pot" when they differ),
    none when no game keeps one, and tokens when a game counts them.  A game with no figures to
    show (one that moves no chips at the table) says nothing of the night's words."""
    distinct = list(dict.fromkeys(w for w in games if w.columns)) or list(dict.fromkeys(games))
    if len(distinct) == 1:
        return distinct[0]
    if not distinct:
        return NEUTRAL
    pots = {w.pot for w in distinct if w.pot is not None}
    pot = None if not pots else (pots.pop() if len(pots) == 1 else "pot")
    return replace(NEUTRAL, pot=pot, tokens=any(w.tokens for w in distinct))

