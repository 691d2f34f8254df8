"""The end-of-night report: who won what, and who pays whom.

Pure (no Flask, no database; ``tests/test_purity.py`` checks it) and game-agnostic:
it imports no game package (``tests/test_purity.py`` checks that too).  The night's
games (each a state, its rules, its closing and its
:class:`~companion.games.base.GameKind`) and the money settings in, a frozen
:class:`Report` out.  The pages, the CSV and JSON downloads and the per-player
history all read the same :class:`Report`, so they cannot disagree.

Where the figures come from
---------------------------
Each game gives its part of the report (:class:`GamePart`): its game lines, each
player's :class:`Figures` per line, and its closing as a :class:`PotClosing`.  A
game whose kind has a ``report_part`` breaks itself down (Napalm: game by game to
its token target, :mod:`companion.games.napalm.report`); any other gets
:func:`transfer_part`, a sum over the *live* records of the game (undone actions
and the undos themselves cancel out and are left out):

* **antes**: chips a player put into a pot or pool (a cost, shown negative);
* **side bets**: chips passed from one player to another;
* **pots**: chips a player took out of a pot or pool;
* **unfinished pot**: what the game's closing gives each player back out of a
  pot or pool still in play when it ended (chips carried to the next night count
  as returned to their owners: they are left out of tonight's balances).

These are what chips did; what they are *called* is the game's: each game kind
declares a :class:`~companion.games.vocabulary.ReportVocabulary` (its
``report_vocabulary``: Napalm's antes, side bets, pots and tokens; Nap's bids and
pool; a pot game's antes, pots and sales), every game line carries its game's, and
the pages, the CSV and the JSON say only those words (docs/report-format.md).  The
night's totals and payments are in the night's words (:func:`night_words`).

The night's own ledger (the Bonus Round, the bank's counts) is one more part
(:func:`ledger_part`).  :func:`build_night_report` adds the parts up.  A player's net
chips are ``pots + unfinished pot + side bets won - side bets lost - antes``; the
report checks that this equals the closing balance, and the closing balances add
up to zero (less what is carried).

Money
-----
Money is ``chips x chip value`` as an exact :class:`~decimal.Decimal`.  A chip
value has at most four decimal places (:mod:`companion.money.amounts`), and
:func:`~companion.money.amounts.format_money` shows up to four, so no amount is
ever rounded on the way to the screen: the payments shown add up, to the last
digit shown, to each player's net money.

Who pays whom
-------------
* **Fewest payments** (the default): :func:`~companion.money.settle.settle_up`
  over the closing balances.  It matches totals, not bets, so each payment comes
  with an explanation: both players' balances broken down, what passed between
  the two directly, and how the payer's debt is split.
* **Pair by pair**: every side bet is paid to the player who won it, netted per
  pair; the pot is attributed game by game: the antes a player put into a
  game's pot go to whoever took that pot (in a finished game, each player pays
  the winner the antes they put in; in an unfinished game, its closing
  decides: returned antes or a carried pot move nothing between players, a pot
  shared otherwise (Napalm's split among the token leaders) is paid from the
  others' antes in the fewest payments).  Side bets and pot shares between the same two players are netted
  into one payment, whose parts are kept for the page.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, localcontext
from typing import Any

from companion.money.amounts import chips_text, signed as _signed, to_money, value_text
from companion.money.settle import Payment, pairwise_debts, settle_up
from companion.games.base import GameClosing, GameKind, GameState
from companion.games.vocabulary import NEUTRAL, ReportVocabulary

__all__ = [
    "FORMAT",
    "Figures",
    "GameLine",
    "GamePart",
    "PairLine",
    "PlanLine",
    "PlayerReport",
    "PotClosing",
    "Report",
    "Section",
    "build_night_report",
    "games_played_text",
    "ledger_part",
    "transfer_part",
]

VIEWS = ("plan", "pairwise")

#: the version of the report's JSON and CSV (docs/report-format.md): each says it, and it
#: changes only with a new version written down there.  1 was unversioned: every game in
#: Napalm's words; 2 says each game's own words (:mod:`companion.games.vocabulary`).
FORMAT = "companion-report/2"


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
            out.append(f"{_phrase(words.paid_in, 'paid in')} {_signed(-self.antes)}")
        between = words.between.phrase if words.between is not None else "chips"
        for name, chips in self.won_from:
            out.append(f"{between} {_signed(chips)} from {name}")
        for name, chips in self.lost_to:
            out.append(f"{between} {_signed(-chips)} to {name}")
        if self.pots:
            out.append(f"{_phrase(words.taken_out, 'taken out')} {_signed(self.pots)}")
        if self.unfinished:
            out.append(f"{_phrase(words.returned, 'returned')} {_signed(self.unfinished)}")
        if self.ledger:
            out.append(f"{self.ledger_label or 'the night'} {_signed(self.ledger)}")
        return out


def _phrase(term: Any, fallback: str) -> str:
    """A term's phrase; ``fallback`` for a figure the words leave out (never shown: it is zero)."""
    return term.phrase if term is not None else fallback


def _add(figures: Iterable[Figures], order: Sequence[str]) -> Figures:
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

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def short(self) -> str:
        """The line's name in a narrow column: "2·1", "3", "Bank", "Bonus"."""
        if self.extra:
            return self.title.removeprefix("The ").split()[0].capitalize()
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
class PairLine:
    """One payment of the pair-by-pair plan: side bets and pot shares between two players."""

    payer: str
    payee: str
    chips: int
    money: Decimal
    money_text: str
    paid: bool
    side_bets: int  # chips the payer owes the payee from side bets (may be negative)
    through_pot: int  # chips the payer owes the payee from the pot (may be negative)
    why: tuple[str, ...]


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

    def find(self, view: str, payer: str, payee: str, chips: int) -> PlanLine | PairLine | None:
        """The first line of ``view`` for this payment that is not yet paid, if any."""
        for line in self.lines(view):
            if (line.payer, line.payee, line.chips) == (payer, payee, chips) and not line.paid:
                return line
        return None

    @property
    def settled(self) -> bool:
        """Whether the recorded payments square everyone."""
        return not self.remaining

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
        return _add((player.games[i] for i in section.lines), [p.name for p in self.players])

    @property
    def pot_word(self) -> str | None:
        """What the night's games call the chips in the middle ("pot", "pool"); None: no game of it keeps any."""
        return self.words.pot

    # --- downloads ---

    def figures_dict(self, f: Figures, words: ReportVocabulary) -> dict[str, Any]:
        """One player's figures as the JSON writes them: keyed in ``words``, a figure they leave out left out."""
        out: dict[str, Any] = {}
        if words.paid_in is not None:
            out[words.paid_in.key] = f.antes
        if words.between is not None:
            out[words.between.won_key] = dict(f.won_from)
            out[words.between.lost_key] = dict(f.lost_to)
        if words.taken_out is not None:
            out[words.taken_out.key] = f.pots
        if words.returned is not None:
            out[words.returned.key] = f.unfinished
        if words.tokens:
            out["tokens"] = f.tokens
        if f.ledger:  # the Bonus Round's payments, or on chip counts the counts beyond the games
            out["night_ledger"] = f.ledger
        out["net_chips"] = f.net
        return out

    def as_dict(self) -> dict[str, Any]:
        """The report as ``report.json`` holds it (:data:`FORMAT`, docs/report-format.md)."""
        words = self.words
        data: dict[str, Any] = {
            "format": FORMAT,
            "night": self.name,
            "chip_value": f"{self.chip_value.normalize():f}",
            "currency": self.currency,
            "words": _words_dict(words),
            "carried_in": dict(self.carried_in),
        }
        if words.pot is not None:
            left: dict[str, Any] = {}
            if self.closing.setting_text:  # a game's setting decided (Napalm's), not its own rules
                left["choice"] = self.closing.choice
            left[words.pot] = self.closing.pot
            left.update(carried=self.closing.carried, carried_shares=self.closing.carried_shares, note=self.closing.note)
            data[f"unfinished_{words.pot}"] = left
        data["games"] = [_line_dict(g) for g in self.games]
        data["players"] = [
            {
                "name": p.name,
                "seat": p.seat,
                **self.figures_dict(p.total, words),
                "games_won": p.games_won,
                "money": _plain(p.money),
                "games": [
                    {"number": g.number, **self.figures_dict(f, words if g.extra else g.words)}
                    for g, f in zip(self.games, p.games)
                ],
            }
            for p in self.players
        ]
        data["payments"] = [
            {"from": p.payer, "to": p.payee, "chips": p.chips, "money": _plain(p.money), "paid": p.paid}
            for p in self.plan
        ]
        data["pairwise"] = [
            {
                "from": p.payer,
                "to": p.payee,
                "chips": p.chips,
                "money": _plain(p.money),
                **({words.between.key: p.side_bets} if words.between is not None else {}),
                **({f"through_{words.pot}": p.through_pot} if words.pot is not None else {}),
                "paid": p.paid,
            }
            for p in self.pairwise
        ]
        data["recorded_payments"] = [{"from": p.payer, "to": p.payee, "chips": p.chips} for p in self.recorded]
        return data

    def csv_columns(self) -> list[str]:
        """The figures' columns of the CSV, in the night's words (:meth:`to_csv`)."""
        words = self.words
        out = []
        if words.paid_in is not None:
            out.append(words.paid_in.key)
        if words.between is not None:
            out += [words.between.won_key, words.between.lost_key]
        if words.taken_out is not None:
            out.append(words.taken_out.key)
        if words.returned is not None:
            out.append(words.returned.key)
        if words.tokens:
            out.append("tokens")
        return out

    def to_csv(self, view: str = "plan") -> str:
        """A first line naming the format (:data:`FORMAT`), a header, one row per player, then one per
        payment of ``view``; the figures in the night's words; money exact, as plain decimals."""
        words = self.words
        columns = self.csv_columns()
        rows: list[list[Any]] = [
            ["format", FORMAT],
            ["row", "player", "to", *columns, "games_won", "net_chips", "money", "currency", "paid"],
        ]
        for p in self.players:
            t = p.total
            cells: list[Any] = []
            if words.paid_in is not None:
                cells.append(t.antes)
            if words.between is not None:
                cells += [t.side_won, t.side_lost]
            if words.taken_out is not None:
                cells.append(t.pots)
            if words.returned is not None:
                cells.append(t.unfinished)
            if words.tokens:
                cells.append(t.tokens)
            rows.append(
                [
                    "player", _Text(p.name), "", *cells, p.games_won, p.net_chips, _plain(p.money),
                    _Text(self.currency), "",
                ]
            )
        for line in self.lines(view):
            rows.append(
                [
                    "payment", _Text(line.payer), _Text(line.payee), *([""] * len(columns)), "",
                    line.chips, _plain(line.money), _Text(self.currency), "yes" if line.paid else "no",
                ]
            )
        return "".join(",".join(_csv_field(cell) for cell in row) + "\r\n" for row in rows)


def _words_dict(words: ReportVocabulary) -> dict[str, Any]:
    """What the figures of the JSON are called: each key's meaning is fixed, its name the game's."""
    out: dict[str, Any] = {}
    if words.paid_in is not None:
        out["paid_in"] = words.paid_in.key
    if words.between is not None:
        out["between"] = {"won": words.between.won_key, "lost": words.between.lost_key, "pairwise": words.between.key}
    if words.taken_out is not None:
        out["taken_out"] = words.taken_out.key
    if words.returned is not None:
        out["returned"] = words.returned.key
    out["pot"] = words.pot
    if words.tokens:
        out["tokens"] = "tokens"
    return out


def _line_dict(g: GameLine) -> dict[str, Any]:
    """One line of the report's games as the JSON writes it."""
    out: dict[str, Any] = {"number": g.number, "night_game": g.night_game, "title": g.title}
    if g.extra:
        out.update(night_ledger=True, text=g.text)
        return out
    out["words"] = _words_dict(g.words)
    if g.text:  # a game broken down by its records
        out.update(records=g.hands, text=g.text, finished=g.finished)
        if g.words.pot is not None:
            out[f"{g.words.pot}_left"] = g.pot
        return out
    out.update(winner=g.winner, pot=g.pot, hands=g.hands, finished=g.finished)
    return out


def _plain(amount: Decimal) -> str:
    """An exact amount in fixed notation with at least two places: "1.25", "-0.05", "30.00", "0.125"."""
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, len(amount.as_tuple().digits) + abs(amount.as_tuple().exponent) + 3)  # type: ignore[arg-type]
        amount = amount.normalize()
        if amount.as_tuple().exponent > -2:  # type: ignore[operator]
            amount = amount.quantize(Decimal("0.01"))  # exact: it has no finer digit
    return f"{amount:f}"


class _Text(str):
    """A CSV cell of text a person typed (a name, a currency): always quoted, never a formula."""


#: what makes a spreadsheet read a cell as a formula, once NFKC turns "\uff1d" (full-width =) into "="
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
#: what a spreadsheet may split a line on (its locale's list separator, or a choice in its import dialog)
_SEPARATORS = re.compile(r"([,;\t|])")


def _starts_a_formula(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula: full-width and small forms (\uff1d,
    \ufe66, \uff0b, \uff20…) read as their plain forms, spaces and a quote before them skipped."""
    first = unicodedata.normalize("NFKC", text.lstrip(' "\u3000\u00a0')[:1])
    return first[:1] in _FORMULA_START or text[:1] in _FORMULA_START


def _cell(text: str) -> str:
    """Keep a spreadsheet from reading a name as a formula: a ' before each part that would start one.

    Quoting the cell keeps a "," inside it, but a spreadsheet that splits the file on ";"
    (or a tab) ignores quotes in mid-field: "a;=HYPERLINK(1)" made a cell "=HYPERLINK(1)…".
    So each part after such a separator is defused too: "a;'=HYPERLINK(1)".
    """
    parts = _SEPARATORS.split(text)
    return "".join("'" + part if i % 2 == 0 and _starts_a_formula(part) else part for i, part in enumerate(parts))


def _csv_field(cell: Any) -> str:
    """One CSV field (RFC 4180): text a person typed quoted whatever it holds, so that no separator
    a spreadsheet splits on (",", ";", a tab) makes a second cell of it ("a;=HYPERLINK(1)");
    the app's own labels and numbers hold none and stay bare."""
    if isinstance(cell, _Text):
        return '"' + _cell(str(cell)).replace('"', '""') + '"'
    return str(cell)


# --- building it ------------------------------------------------------------------------


@dataclass(frozen=True)
class GamePart:
    """One game's share of a report: its players' figures, its game lines, its closing.

    A game makes its own (``report_part`` on its :class:`~companion.games.base.GameKind`)
    or gets :func:`transfer_part`; :func:`build_night_report` adds the parts up.
    """

    players: tuple[str, ...]
    figures: dict[str, tuple[Figures, ...]]  # per player, one per game line
    games_won: dict[str, int]
    stack_change: dict[str, int]
    games: tuple[GameLine, ...]
    closing: PotClosing
    carried_in: dict[str, int]


def report_from_part(
    part: GamePart,
    *,
    chip_value: Decimal,
    currency: str = "",
    paid: Iterable[tuple[str, str, int]] = (),
    name: str = "",
    words: ReportVocabulary | None = None,
) -> Report:
    """The report of one part as the whole night: each player's totals, checked, and who pays whom.

    ``words`` are the night's (its game's ``report_vocabulary``); by default those of the
    part's game lines.

    ``paid`` are the settle-up payments recorded so far, ``(payer, payee, chips)``
    in the order recorded.  Each marks the first unpaid matching line of the
    plan and, separately, of the pairwise list; those that mark no line of a
    list (the table changed after they were recorded, or they were marked in
    the other view) are listed by :meth:`Report.unmatched`, and
    :attr:`Report.remaining` settles what is left counting every one of them.
    """
    if words is None:
        words = night_words([g.words for g in part.games if not g.extra])
    return _settle(name, part.players, part, chip_value, currency, paid, words)


def games_played_text(titles: Sequence[str], games: Sequence[GameLine]) -> str:
    """The night's games as played, in a list of nights: "3 games: Napalm (1 game finished, one
    unfinished), Pool Nap, High Card"; one game alone is its title ("Pool Nap").

    ``titles`` are the night's played games' names in order, ``games`` its report's lines.  Only a
    game that plays games inside it (Napalm's games to a token target: lines numbered 1, 2, …) says
    how many of them finished; a Nap or pot game has none, so it is named and nothing more.
    """
    if not titles:
        return "no game played"
    said = []
    for place, title in enumerate(titles, start=1):
        inner = [
            g for g in games
            if not g.extra and g.number and (g.night_game == place or (g.night_game == 0 and len(titles) == 1))
        ]
        finished = sum(1 for g in inner if g.finished)
        unfinished = len(inner) - finished
        if finished:
            counted = f"{finished} game{'' if finished == 1 else 's'} finished" + (", one unfinished" if unfinished else "")
        elif unfinished:
            counted = "game 1 unfinished"
        else:
            counted = ""
        said.append(f"{title} ({counted})" if counted else title)
    return ", ".join(said) if len(said) == 1 else f"{len(said)} games: " + ", ".join(said)


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


#: one game of a night as :func:`build_night_report` takes it: its title, its fold, its rules
#: (as its kind reads them), its closing (:meth:`GameKind.close`) and its kind
NightGame = tuple[str, Any, Any, GameClosing, GameKind]


def game_report_part(
    number: int,
    title: str,
    state: GameState,
    rules: Any,
    closing: GameClosing,
    kind: GameKind,
    carried_on: Mapping[str, int] | None = None,
) -> GamePart:
    """One game's part of the report, as its kind breaks it down, else from its records' transfers.

    ``number`` is the game's place in the night (1, 2, …), or 0 for the night's only
    game with nothing beside it (its lines then carry no night numbering).
    """
    own = kind.report_part  # declared on every game: None, or its own breakdown
    if own is not None:
        part = own(number, title, state, rules, closing, carried_on)
    else:
        part = transfer_part(number or 1, title, state, closing)
    words = kind.report_vocabulary
    return replace(part, games=tuple(g if g.extra else replace(g, words=words) for g in part.games))


def build_night_report(
    games: Sequence[NightGame],
    seated: Sequence[str],
    *,
    chip_value: Decimal,
    currency: str = "",
    paid: Iterable[tuple[str, str, int]] = (),
    name: str = "",
    carried_on: Mapping[str, int] | None = None,
    extra: tuple[str, Mapping[str, int]] | tuple[str, Mapping[str, int], str] | None = None,
) -> Report:
    """The report of a night of games: ``games`` are (title, state, rules, closing, kind), in order.

    ``rules`` are the game's rules as its kind reads them, ``closing`` its
    :class:`~companion.games.base.GameClosing` and ``kind`` its
    :class:`~companion.games.base.GameKind`.  Each game counts as it closed
    (a game followed by another was stopped when the next started, and its closing dealt
    with its pot); the night's plan settles the sum, once.  A game whose kind has a
    ``report_part`` breaks itself down (Napalm: game by game to its token target); any
    other is broken down by the transfers of its records (:func:`transfer_part`).  A
    night of one game that breaks itself down, with nothing beside it, is that game's
    part alone (:func:`report_from_part`).  ``extra`` is what the night's own ledger adds
    beside its games, (what it is, chips per player summing to 0): the Bonus Round's
    payments, or on chip counts the bank's results less the games' balances; it is its
    own line of the report and counts in the plan; a third item, when given, says what it is
    (the line's text).
    """
    extra_chips = {n: c for n, c in (extra[1] if extra else {}).items() if c}
    entries = list(games)
    words = night_words([entry[4].report_vocabulary for entry in entries])
    if len(entries) == 1 and not extra_chips:
        title, state, rules, game_closing, kind = entries[0]
        if kind.report_part is not None:
            part = game_report_part(0, title, state, rules, game_closing, kind, carried_on)
            return report_from_part(part, chip_value=chip_value, currency=currency, paid=paid, name=name, words=words)
    parts = [
        game_report_part(number, title, state, rules, game_closing, kind, carried_on)
        for number, (title, state, rules, game_closing, kind) in enumerate(entries, start=1)
    ]
    if extra is not None and extra_chips:
        parts.append(ledger_part(extra[0], seated, extra_chips, extra[2] if len(extra) > 2 else ""))  # type: ignore[misc]
    players = tuple(seated)
    figures = {
        n: tuple(f for part in parts for f in (part.figures.get(n) or (Figures(),) * len(part.games)))
        for n in players
    }
    closings = [part.closing for part in parts]
    # the game at the table: the last game (the night's own ledger, when shown, comes after it)
    at_table = [part for part in parts if not part.games or not part.games[0].extra][-1].closing
    carrying = [c for c in closings if c.carried]
    # The pot and its shares are the game at the table's: the table already counts the games
    # before it as they closed, so only its pot is "dealt with" between the table and the plan.
    closing = PotClosing(
        pot=at_table.pot,
        net={n: sum(c.net.get(n, 0) for c in closings) for n in players},
        shares={n: at_table.shares.get(n, 0) for n in players},
        carried=sum(c.carried for c in closings),
        note=" ".join(f"{ordinal(i)} game: {c.note}" for i, c in enumerate(closings, start=1) if c.pot),
        stakes={n: sum(c.stakes.get(n, 0) for c in carrying) for n in players},
        choice=at_table.choice,
        setting_text=at_table.setting_text,
        carries=at_table.carries,
    )
    merged = GamePart(
        players=players,
        figures=figures,
        games_won={n: sum(part.games_won.get(n, 0) for part in parts) for n in players},
        stack_change={n: sum(part.stack_change.get(n, 0) for part in parts) for n in players},
        games=tuple(g for part in parts for g in part.games),
        closing=closing,
        carried_in=parts[0].carried_in,
    )
    return _settle(name, players, merged, chip_value, currency, paid, words)


def ledger_part(title: str, seated: Sequence[str], chips: Mapping[str, int], what: str = "") -> GamePart:
    """What the night's own ledger adds beside its games, as one line of the report.

    Its own figure (:attr:`Figures.ledger`, named by ``title``), never antes or pots won: on chip
    counts it is what the counts say beyond the games (a poker result is not "pots won").  The
    pair-by-pair payments square it like a game's pot.  The line's text is ``what`` it is and
    each player's share, so its title is said once ("The bank: each count less …: Ann +3, …")."""
    if sum(chips.values()) != 0:  # pragma: no cover - the night ledger balances by construction
        raise ValueError(f"{title} does not balance: {dict(chips)}")
    players = tuple(seated)
    figures = {n: (Figures(ledger=chips.get(n, 0), ledger_label=title),) for n in players}
    shares = ", ".join(f"{n} {_signed(chips.get(n, 0))}" for n in players)
    line = GameLine(0, None, 0, 0, night_game=0, title=title, text=f"{what}: {shares}" if what else shares, extra=True)
    closing = PotClosing(pot=0, net={n: chips.get(n, 0) for n in players},
                         shares=dict.fromkeys(players, 0), carried=0, note="")
    return GamePart(
        players=players, figures=figures, games_won=dict.fromkeys(players, 0),
        stack_change={n: chips.get(n, 0) for n in players}, games=(line,), closing=closing, carried_in={},
    )


def transfer_part(number: int, title: str, state: Any, game_closing: GameClosing) -> GamePart:
    """A game's figures from the transfers of its live records: any game without a ``report_part``.

    Chips a player pays into a pot or pool count as antes, chips taken out of one as
    pots, chips paid from one player to another as side bets between the two; what
    the game's closing gives back (an unwon pool, a pot left in a stopped deal) as
    the unfinished pot.  One line for the whole game, with each record's summary.
    """
    players = tuple(state.players)
    seated = set(players)
    antes: Counter[str] = Counter()
    pots: Counter[str] = Counter()
    won = {n: Counter[str]() for n in players}
    lost = {n: Counter[str]() for n in players}
    live = state.live_records()
    for record in live:
        for t in record.transfers:
            payer = t.payer if t.payer in seated else None
            payee = t.payee if t.payee in seated else None
            if payer is not None and payee is not None:
                won[payee][payer] += t.chips
                lost[payer][payee] += t.chips
            elif payer is not None:
                antes[payer] += t.chips
            elif payee is not None:
                pots[payee] += t.chips
    net = dict(state.net_chips)
    back = {n: game_closing.net.get(n, 0) - net.get(n, 0) for n in players}
    left = sum(back.values())
    figures = {
        n: (
            Figures(
                antes=antes[n],
                won_from=tuple((o, won[n][o]) for o in players if won[n][o]),
                lost_to=tuple((o, lost[n][o]) for o in players if lost[n][o]),
                pots=pots[n],
                unfinished=back[n],
            ),
        )
        for n in players
    }
    count = len(live)
    text = f"{count} record{'' if count == 1 else 's'}" + (f"; {game_closing.note}" if game_closing.note else "")
    line = GameLine(
        0, None, left, count, night_game=number, title=title, choice_text=game_closing.note,
        text=text, records=tuple(r.summary for r in live),
    )
    closing = PotClosing(
        pot=left, net=dict(game_closing.net), shares=back, carried=game_closing.carried_total,
        note=game_closing.note,
    )
    return GamePart(
        players=players,
        figures=figures,
        games_won=dict.fromkeys(players, 0),
        stack_change={n: net.get(n, 0) + back[n] for n in players},
        games=(line,),
        closing=closing,
        carried_in={},
    )


def _settle(
    name: str,
    players: Sequence[str],
    part: GamePart,
    chip_value: Decimal,
    currency: str,
    paid: Iterable[tuple[str, str, int]],
    words: ReportVocabulary,
) -> Report:
    """The report of ``part``'s figures: each player's totals, checked against the ledger, and who pays whom.

    ``words`` are the night's; each game line's figures must fit its own words (a game whose
    records hold a figure its words leave out declared them wrong)."""
    closing = part.closing
    games = part.games
    lines = []
    for seat, player in enumerate(players):
        per_game = part.figures[player]
        for line, f in zip(games, per_game):
            missing = None if line.extra else line.words.lacks(f.antes, f.side_won + f.side_lost, f.pots, f.unfinished, f.tokens)
            if missing is not None:
                raise ValueError(f"{line.title or 'a game'}: its report words leave out chips {missing}, which {player} has")
        total = _add(per_game, players)
        net = closing.net[player]
        if total.net != net:  # pragma: no cover - the ledger and the report disagree: a bug
            raise ValueError(f"{player}'s figures add up to {total.net}, but the ledger says {net}")
        money = to_money(net, chip_value)
        lines.append(
            PlayerReport(
                name=player,
                seat=seat + 1,
                games=per_game,
                total=total,
                games_won=part.games_won[player],
                net_chips=net,
                money=money,
                money_text=value_text(net, chip_value, currency),
                stack_change=part.stack_change[player],
            )
        )
    by_name = {p.name: p for p in lines}

    recorded = tuple(Payment(a, b, c) for a, b, c in paid)
    plan = settle_up(closing.net)
    plan_paid = _match(plan, recorded)
    pairs, parts = _pairwise(players, by_name, games, closing.net)
    pairs_paid = _match(pairs, recorded)
    plan_lines = tuple(
        PlanLine(
            payer=p.payer,
            payee=p.payee,
            chips=p.chips,
            money=money,
            money_text=value_text(p.chips, chip_value, currency),
            paid=done,
            why=_why_plan(p, plan, by_name, words),
        )
        for p, done in zip(plan, plan_paid)
        for money in (to_money(p.chips, chip_value),)
    )
    pair_lines = tuple(
        PairLine(
            payer=p.payer,
            payee=p.payee,
            chips=p.chips,
            money=money,
            money_text=value_text(p.chips, chip_value, currency),
            paid=done,
            side_bets=parts[p.payer, p.payee][0],
            through_pot=parts[p.payer, p.payee][1],
            why=_why_pair(p, parts[p.payer, p.payee], by_name, words),
        )
        for p, done in zip(pairs, pairs_paid)
        for money in (to_money(p.chips, chip_value),)
    )
    left = dict(closing.net)
    for p in recorded:
        left[p.payer] += p.chips
        left[p.payee] -= p.chips
    return Report(
        name=name,
        players=tuple(lines),
        games=games,
        chip_value=chip_value,
        currency=currency,
        closing=closing,
        choice_text=closing.setting_text,
        plan=plan_lines,
        pairwise=pair_lines,
        recorded=recorded,
        unmatched_plan=_leftover(plan, recorded),
        unmatched_pairwise=_leftover(pairs, recorded),
        remaining=settle_up(left),
        carried_in=tuple(part.carried_in.items()),
        words=words,
    )


def _key(p: Payment) -> tuple[str, str, int]:
    return (p.payer, p.payee, p.chips)


def _leftover(payments: Sequence[Payment], recorded: Sequence[Payment]) -> tuple[Payment, ...]:
    """The recorded payments that mark none of ``payments``, in the order recorded."""
    left = Counter(_key(p) for p in payments)
    out = []
    for p in recorded:
        if left[_key(p)] > 0:
            left[_key(p)] -= 1
        else:
            out.append(p)
    return tuple(out)


def _match(payments: Sequence[Payment], recorded: Sequence[Payment]) -> list[bool]:
    """Which payments a recorded payment marks as paid (each recorded one marks at most one)."""
    left = Counter(_key(p) for p in recorded)
    out = []
    for p in payments:
        k = _key(p)
        out.append(left[k] > 0)
        if left[k] > 0:
            left[k] -= 1
    return out


def _pairwise(
    players: Sequence[str],
    by_name: Mapping[str, PlayerReport],
    games: Sequence[GameLine],
    closing_net: Mapping[str, int],
) -> tuple[tuple[Payment, ...], dict[tuple[str, str], tuple[int, int]]]:
    """Pair-by-pair debts, and for each (payer, payee) the (side bets, through the pot) parts."""
    side: list[tuple[str, str, int]] = []
    for p in players:
        for other, chips in by_name[p].total.lost_to:
            side.append((p, other, chips))
    pot: list[tuple[str, str, int]] = []
    for g in range(len(games)):
        # Within one game the pot nets (pots taken and returned minus antes) add
        # up to zero; the fewest payments that square them are, for a finished
        # game, exactly "everyone pays the winner the antes they put in".
        nets = {p: by_name[p].games[g].pot_net + by_name[p].games[g].ledger for p in players}
        pot += [(x.payer, x.payee, x.chips) for x in settle_up(nets)]
    pairs = pairwise_debts(side + pot)
    side_by_pair = pairwise_debts(side)
    pot_by_pair = pairwise_debts(pot)

    def owed(debts: Iterable[Payment], payer: str, payee: str) -> int:
        for d in debts:
            if (d.payer, d.payee) == (payer, payee):
                return d.chips
            if (d.payer, d.payee) == (payee, payer):
                return -d.chips
        return 0

    parts = {
        (p.payer, p.payee): (owed(side_by_pair, p.payer, p.payee), owed(pot_by_pair, p.payer, p.payee))
        for p in pairs
    }
    # Every player's pairwise payments add up to their closing balance.
    for name in players:
        flow = sum(p.chips for p in pairs if p.payee == name) - sum(p.chips for p in pairs if p.payer == name)
        if flow != closing_net[name]:  # pragma: no cover - a bug
            raise ValueError(f"the pairwise plan gives {name} {flow}, the ledger says {closing_net[name]}")
    return pairs, parts


# --- explanations --------------------------------------------------------------------------


def _balance(p: PlayerReport, words: ReportVocabulary) -> str:
    n = p.net_chips
    where = f"{chips_text(n)} up" if n > 0 else (f"{chips_text(-n)} down" if n < 0 else "square")
    parts = p.total.parts(words)
    return f"{p.name} ends the night {where}" + (f" ({', '.join(parts)})" if parts else "")


def _split(name: str, role: str, payments: Sequence[Payment]) -> str | None:
    mine = [p for p in payments if (p.payer if role == "pays" else p.payee) == name]
    if len(mine) < 2:
        return None
    total = sum(p.chips for p in mine)
    if role == "pays":
        parts = ", ".join(f"{p.chips} to {p.payee}" for p in mine)
        return f"{name} owes {chips_text(total)} in all, paid as {parts}."
    parts = ", ".join(f"{p.chips} from {p.payer}" for p in mine)
    return f"{name} is owed {chips_text(total)} in all, received as {parts}."


def _why_plan(
    payment: Payment, plan: Sequence[Payment], by_name: Mapping[str, PlayerReport], words: ReportVocabulary
) -> tuple[str, ...]:
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    won, lost = payer.total.with_opponent(payee.name)
    between = words.between
    if won or lost:
        phrase = between.phrase if between is not None else "chips"
        direct = (
            f"Between the two directly: {payer.name} lost {lost} to {payee.name} in {phrase}"
            f" and won {won} from {payee.name}."
        )
    elif between is not None:
        direct = f"{payer.name} and {payee.name} had no {between.one} against each other."
    else:
        direct = f"No chips passed between {payer.name} and {payee.name} directly."
    out = [_balance(payer, words) + ".", _balance(payee, words) + ".", direct]
    for sentence in (_split(payer.name, "pays", plan), _split(payee.name, "receives", plan)):
        if sentence:
            out.append(sentence)
    out.append(
        "The plan pairs what each player owes in total with what others are owed, in the fewest "
        "payments; it does not follow each bet (the pair-by-pair view does)."
    )
    return tuple(out)


def _why_pair(
    payment: Payment, parts: tuple[int, int], by_name: Mapping[str, PlayerReport], words: ReportVocabulary
) -> tuple[str, ...]:
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    side, pot = parts
    won, lost = payer.total.with_opponent(payee.name)
    between = (words.between.phrase if words.between is not None else "chips").capitalize()
    word = words.pot or "pot"
    paid_in = words.paid_in.phrase if words.paid_in is not None else "chips"
    out = []
    if won or lost:
        out.append(
            f"{between}: {payer.name} lost {lost} to {payee.name} and won {won} from {payee.name}: "
            f"{payer.name} owes {side}."
            if side >= 0
            else f"{between}: {payer.name} lost {lost} to {payee.name} and won {won} from {payee.name}: "
            f"{payee.name} owes {-side}, netted here."
        )
    if pot > 0:
        out.append(
            f"Through the {word}: {payer.name} owes {payee.name} {pot} ({payer.name}'s {paid_in} in {word}s that "
            f"went to {payee.name})."
        )
    elif pot < 0:
        out.append(
            f"Through the {word}: {payee.name} owes {payer.name} {-pot} ({payee.name}'s {paid_in} in {word}s that "
            f"went to {payer.name}), netted here."
        )
    return tuple(out)
