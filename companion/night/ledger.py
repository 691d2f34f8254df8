"""The night's own ledger beside its games, as a pure fold: the setting, the chip bank, the Bonus Round,
and what the group's tab settled of the night (``tab_cleared``: :mod:`companion.night.tab`).

Night ledger events (``game_id`` None in the database) of these kinds are folded here
into a :class:`NightLedger`; :mod:`companion.service.bank` reads them from the database
and records them, and :mod:`companion.night.file` reads and writes them in a night file
(top-level keys ``settle_on``, ``bank``, ``bonus`` and ``tab_cleared``: :func:`read_file_keys`,
:func:`file_keys`).

Pure: no Flask, no database (``tests/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from companion.games import IllegalAction
from companion.games.protocol import and_
from companion.night.bonus import BonusGrid, BonusRecord, BonusRound, Roll, SetLucky, check_faces, left_out_of, read_entry
from companion.money.amounts import chips_text
from companion.night.bank import Bank, BankAction, BankCheck, BankError, BuyIn, Cancel, CashOut, EveryoneBuysIn, Rebuy
from companion.games.night_kinds import BANK_KINDS, BONUS_KINDS, MODE_KIND, TAB_CLEARED
from companion.night import tab as night_tab
from companion.night.tab import TabCleared
from companion.values.reading import unknown_key

TALLY, BANK = "tally", "bank"
SETTLE_ON = {TALLY: "the app's tally", BANK: "chip counts (the bank)"}

#: the kinds that settle the night: still recorded once its pot went on to the next night
SETTLING_KINDS = (MODE_KIND, *BANK_KINDS)
KINDS = SETTLING_KINDS + BONUS_KINDS
#: what the night's ledger folds: its own kinds, and the group's tab records against it (which only the
#: group's service appends: the Bank page's commands never record one)
FOLDED = KINDS + (TAB_CLEARED,)
MAX_LUCKY_CHIPS = 1_000_000


# --- the fold -------------------------------------------------------------------------------


@dataclass
class NightLedger:
    """The night's setting, bank and Bonus Round at one version of its log.

    ``chip_by_chip``: every game of the night so far records each chip (no Poker with real
    betting): only then can the night settle on the app's tally once chips were bought.
    ``chosen``: the setting last chosen on the Bank page (a ``settle_on`` event), if any;
    :attr:`settle_on` is what the night settles on (:func:`basis`)."""

    players: tuple[str, ...]
    chip_value: Decimal
    currency: str = ""
    chip_by_chip: bool = True
    chosen: str | None = None
    bank: Bank = field(init=False)
    grid: BonusGrid | None = None
    lucky_chips: int = 1
    lucky: dict[str, tuple[int, ...]] = field(default_factory=dict)
    bonus_net: dict[str, int] = field(default_factory=dict)
    #: (night seq, record) of every roll and lucky number, in order
    bonus_log: list[tuple[int, BonusRecord]] = field(default_factory=list)
    #: each grid with the rolls and lucky numbers made under it, as a night file writes them
    rounds: list[dict[str, Any]] = field(default_factory=list)
    #: (night seq, record) of what the group's tab settled of the night, in the order appended
    tab: list[tuple[int, TabCleared]] = field(default_factory=list)
    _round: BonusRound | None = None

    def __post_init__(self) -> None:
        self.bank = Bank(self.players, self.chip_value, self.currency)
        self.bonus_net = {p: 0 for p in self.players}

    @property
    def money(self) -> bool:
        """Whether the night is played for money (amounts of its tab records in its currency), else chips only."""
        return self.chip_value > 0

    @property
    def tab_records(self) -> tuple[TabCleared, ...]:
        """What the group's tab settled of the night, in the order appended."""
        return tuple(record for _, record in self.tab)

    @property
    def settle_on(self) -> str:
        """What the night settles on now: :data:`TALLY` or :data:`BANK` (:func:`basis`)."""
        return basis(self.chosen, bool(self.bank.bought), self.chip_by_chip)[0]

    @property
    def settles_text(self) -> str:
        """The one sentence the table, the Bank page and the report say it in (:func:`basis`)."""
        on, why = basis(self.chosen, bool(self.bank.bought), self.chip_by_chip)
        return f"This night settles on {SETTLE_ON[on]}{why}."

    @property
    def uses_bank(self) -> bool:
        """Whether the night settles on the counts, or bought chips and chose the tally: worth saying."""
        return self.settle_on == BANK or bool(self.bank.bought)

    # reading and verifying ---------------------------------------------------------------

    def verify(self, kind: str, payload: Mapping[str, Any], paid: bool = False) -> str:
        """The summary of event ``kind``/``payload`` if it can be recorded now; IllegalAction says why not."""
        if not isinstance(payload, Mapping):
            raise IllegalAction("that could not be understood")
        if kind == MODE_KIND:
            on = payload.get("on")
            if on not in SETTLE_ON:
                raise IllegalAction("settle the night on the app's tally or on chip counts")
            if on == TALLY and not self.chip_by_chip:
                raise IllegalAction(BETTING_ON_COUNTS)
            if on == self.settle_on:
                raise IllegalAction(f"the night already settles on {SETTLE_ON[on]}")
            if paid:
                raise IllegalAction("settle-up payments are already marked: the night's setting can no longer change")
            return describe(kind, payload)
        if kind in BANK_KINDS:
            action = bank_action(kind, payload)
            try:
                return self.bank.verify(action)[1]
            except BankError as error:
                raise IllegalAction(str(error)) from None
        if kind == TAB_CLEARED:
            record = night_tab.read(payload, self.players, self.money)
            return night_tab.describe(record, self.currency, self.money)
        if kind == "bonus_grid":
            grid, lucky_chips = grid_of(payload)
            return f"The Bonus Round's grid: {grid.dice}, lucky numbers pay {lucky_chips}."
        if kind in ("bonus_roll", "bonus_lucky"):
            bonus = self._bonus()
            return bonus.verify(bonus_action(bonus.grid, kind, payload))[1]
        raise IllegalAction(f"unknown event kind {kind!r}")

    def _bonus(self) -> BonusRound:
        if self._round is None:
            raise IllegalAction("fill in the Bonus Round's grid first")
        return self._round

    def apply(self, seq: int, kind: str, payload: Mapping[str, Any]) -> None:
        """Fold one stored event (verified when it was recorded)."""
        if kind == MODE_KIND:
            self.chosen = payload["on"]
        elif kind in BANK_KINDS:
            self.bank.push(bank_action(kind, payload), seq=seq)
        elif kind == TAB_CLEARED:
            self.tab.append((seq, night_tab.read(payload, self.players, self.money)))
        elif kind == "bonus_grid":
            self.grid, self.lucky_chips = grid_of(payload)
            self._round = BonusRound(self.players, self.grid, self.lucky_chips)
            self.rounds.append({"grid": self.grid.to_dict(), "lucky_chips": self.lucky_chips, "rolls": []})
            for owner, faces in self.lucky.items():  # the lucky numbers stay; a d20's cannot be a pair
                if self.grid.dice == ("2d6" if len(faces) == 2 else "d20"):
                    self._round.push(SetLucky(owner, faces))
        elif kind in ("bonus_roll", "bonus_lucky"):
            bonus = self._bonus()
            record = bonus.push(bonus_action(bonus.grid, kind, payload))
            if isinstance(record.action, SetLucky):
                self.lucky[record.action.player] = tuple(record.action.faces)
            for t in record.transfers:
                assert t.payer is not None and t.payee is not None
                self.bonus_net[t.payer] -= t.chips
                self.bonus_net[t.payee] += t.chips
            self.bonus_log.append((seq, record))
            self.rounds[-1]["rolls"].append(bonus.to_list()[-1])

    @property
    def bonus_payments(self) -> tuple[tuple[str, str, int], ...]:
        """Every payment the Bonus Round made, player to player, as (payer, payee, chips) in the order made."""
        return tuple(
            (t.payer, t.payee, t.chips) for _, record in self.bonus_log for t in record.transfers
            if t.payer is not None and t.payee is not None and t.chips
        )

    @property
    def rolls(self) -> list[tuple[int, BonusRecord]]:
        return [(seq, r) for seq, r in self.bonus_log if isinstance(r.action, Roll)]

    @property
    def last_roll(self) -> tuple[int, BonusRecord] | None:
        rolls = self.rolls
        return rolls[-1] if rolls else None


#: why a night with a betting game cannot settle on the tally
BETTING_ON_COUNTS = (
    "Poker with real betting is played tonight: the chips on the table settle its pots, so no tally knows "
    "them and the night settles on chip counts"
)


def basis(chosen: str | None, bought: bool, chip_by_chip: bool) -> tuple[str, str]:
    """What a night settles on, and why (a clause for :attr:`NightLedger.settles_text`).

    RULES-POKER.md: "a night that uses the bank settles on the counts".  So from the first
    buy-in (``bought``: chips are out of the bank) or the first game of Poker with real
    betting (not ``chip_by_chip``: its pots are in no tally) the night is on the counts,
    with nothing to switch.  One choice stays (docs/bank.md): a group that bought chips
    for games the app records chip by chip may settle on the app's tally instead (the
    tally then knows every chip, and nobody need count); a betting game overrides it."""
    if not chip_by_chip:
        return BANK, ": Poker with real betting is played tonight, and the chips on the table settle its pots"
    if chosen == TALLY and bought:
        return TALLY, ", as chosen on the Bank page: the chips bought and counted are not used"
    if chosen == BANK:
        return BANK, ", as chosen on the Bank page: each player's count less the chips they bought"
    if bought:
        return BANK, ": chips were bought from the bank, so each player's count less the chips they bought"
    return TALLY, ": the games and the Bonus Round's payments (nobody has bought chips from the bank)"


def cashed_out(ledger: NightLedger) -> tuple[str, ...]:
    """The players whose chips are counted and handed back, in seat order, while their counts settle the
    night: nothing may move their chips any more (issue 20, item 2).  () on the tally."""
    if ledger.settle_on != BANK:
        return ()
    out = ledger.bank.cashed_out
    return tuple(p for p in ledger.players if p in out)


def moves_cashed_out(
    ledger: NightLedger, before: Mapping[str, int], after: Mapping[str, int]
) -> str | None:
    """Why an action that takes each player's chips from ``before`` to ``after`` cannot be recorded (it
    moves the chips of a player already cashed out, so their count would no longer be theirs), with
    how to go on; None when it moves none of theirs."""
    moved = [p for p in cashed_out(ledger) if before.get(p, 0) != after.get(p, 0)]
    if not moved:
        return None
    names = and_(moved)
    has = "has" if len(moved) == 1 else "have"
    return (
        f"{names} {has} cashed out, and this would move their chips after their count. To go on: cancel "
        f"{names}'s cash-out in the bank's log (Bank page), record this again, then count and cash out again."
    )


def bank_action(kind: str, payload: Mapping[str, Any]) -> BankAction:
    """A stored bank event as the bank's action (the bank checks the values)."""
    if not isinstance(payload, Mapping):
        raise IllegalAction("that could not be understood")
    if kind == "all_buy_in":
        return EveryoneBuysIn(payload.get("chips"))  # type: ignore[arg-type]
    if kind == "bank_cancel":
        return Cancel(payload.get("seq"))  # type: ignore[arg-type]
    cls = {"buy_in": BuyIn, "rebuy": Rebuy, "cash_out": CashOut}[kind]
    return cls(payload.get("player"), payload.get("chips"))  # type: ignore[arg-type]


def grid_of(payload: Mapping[str, Any]) -> tuple[BonusGrid, int]:
    grid = BonusGrid.from_dict(payload.get("grid"))
    chips = payload.get("lucky_chips", 1)
    if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= MAX_LUCKY_CHIPS:
        raise IllegalAction(f"a lucky number pays a whole number of chips, 1 to {MAX_LUCKY_CHIPS:,}")
    return grid, chips


def bonus_action(grid: BonusGrid, kind: str, payload: Mapping[str, Any]) -> Roll | SetLucky:
    faces = payload.get("faces")
    if not isinstance(faces, list):
        raise IllegalAction("a roll's faces are a list")
    faces_t = check_faces(grid.dice, faces)
    if kind == "bonus_lucky":
        return SetLucky(str(payload.get("player")), faces_t)
    game = payload.get("game")
    if payload.get("dice") != grid.dice or game != grid.game_at(faces_t):
        raise IllegalAction("that roll is not one of the grid's cells")
    return Roll(grid.dice, faces_t, str(game), str(payload.get("roller")), left_out_of(payload.get("left_out", [])))


def _chips(chips: Any) -> str:
    return chips_text(chips) if isinstance(chips, int) and not isinstance(chips, bool) else f"{chips} chips"


def describe(kind: str, payload: Mapping[str, Any]) -> str:
    """One line for the history (no other event needed to say it)."""
    p = payload
    if kind == MODE_KIND:
        return f"The night settles on {SETTLE_ON.get(str(p.get('on')), p.get('on'))}."
    if kind == "buy_in":
        return f"{p.get('player')} bought in {_chips(p.get('chips'))}."
    if kind == "rebuy":
        return f"{p.get('player')} rebought {_chips(p.get('chips'))}."
    if kind == "all_buy_in":
        return f"Everyone bought in {_chips(p.get('chips'))}."
    if kind == "cash_out":
        return f"{p.get('player')} cashed out {_chips(p.get('chips'))}, counted."
    if kind == "bank_cancel":
        return f"Bank correction: #{p.get('seq')} cancelled."
    if kind == "bonus_grid":
        grid = p.get("grid") if isinstance(p.get("grid"), Mapping) else {}
        return f"The Bonus Round's grid ({grid.get('dice')}) was filled in."
    if kind == "bonus_roll":
        faces = "-".join(str(f) for f in p.get("faces") or ())
        left = p.get("left_out") or ()
        out = f" (left out, cashed out: {', '.join(str(n) for n in left)})" if left else ""
        return f"Bonus Round: {p.get('roller')} rolled {faces}: {p.get('game')}{out}."
    if kind == "bonus_lucky":
        faces = "-".join(str(f) for f in p.get("faces") or ())
        return f"Bonus Round: {p.get('player')}'s lucky number is {faces}."
    return kind


# --- the night file: top-level keys "settle_on", "bank" and "bonus" -----------------------------------

#: a bank event in a file: its key (which holds the player, or the chips for everyone) and its kind
FILE_BANK_KEYS = {"everyone_buys_in": "all_buy_in", "buy_in": "buy_in", "rebuy": "rebuy", "cash_out": "cash_out"}
FILE_KEYS = ("settle_on", "bank", "bonus", "tab_cleared")


def file_keys(ledger: NightLedger) -> dict[str, Any]:
    """What a night file holds of ``ledger``: the setting (when it is not what the rule gives), the bank's live events
    (cancelled ones and the cancels left out, as undone records are) and each grid with its rolls."""
    out: dict[str, Any] = {}
    if ledger.settle_on != basis(None, bool(ledger.bank.bought), ledger.chip_by_chip)[0]:
        out["settle_on"] = ledger.settle_on  # only a choice the rule would not make (read_file_keys)
    entries: list[dict[str, Any]] = []
    for event in ledger.bank.live_events():
        action = event.action
        if isinstance(action, EveryoneBuysIn):
            entries.append({"everyone_buys_in": action.chips})
        else:
            key = {BuyIn: "buy_in", Rebuy: "rebuy", CashOut: "cash_out"}[type(action)]
            entries.append({key: action.player, "chips": action.chips})  # type: ignore[union-attr]
    if entries:
        out["bank"] = entries
    if ledger.rounds:
        out["bonus"] = [{**r, "rolls": list(r["rolls"])} for r in ledger.rounds]
    if ledger.tab:
        out["tab_cleared"] = night_tab.file_entries(ledger.tab_records, ledger.money)
    return out


def read_file_keys(
    data: Mapping[str, Any], players: tuple[str, ...], chip_value: Decimal = Decimal("0"), currency: str = "",
    chip_by_chip: bool = True,
) -> tuple[NightLedger, list[tuple[str, dict[str, Any]]]]:
    """The night ledger a file's ``settle_on``, ``bank``, ``bonus`` and ``tab_cleared`` hold, and the
    events to store for it, in order (the tab's records last: they came after the night).  Strict: IllegalAction names the entry and the field.

    ``settle_on`` is stored (after the bank's events) only when it says other than the rule
    would (:func:`basis`): a file with bank records and no ``settle_on`` settles on the counts."""
    ledger = NightLedger(players, chip_value, currency, chip_by_chip=chip_by_chip)
    events: list[tuple[str, dict[str, Any]]] = []

    def add(kind: str, payload: dict[str, Any], where: str) -> None:
        try:
            ledger.verify(kind, payload)
        except IllegalAction as error:
            raise IllegalAction(f"{where}: {error}") from None
        events.append((kind, payload))
        ledger.apply(len(events), kind, payload)

    on = data.get("settle_on")
    if on is not None and on not in SETTLE_ON:
        raise IllegalAction(
            "'settle_on' must be \"tally\" (the app's tally) or \"bank\" (chip counts, the default once the "
            "file has bank records)"
        )
    bank = data.get("bank", [])
    if not isinstance(bank, list):
        raise IllegalAction("'bank' must be a list of the bank's events, in the order recorded")
    for index, entry in enumerate(bank):
        where = f"'bank'[{index}]"
        if not isinstance(entry, dict):
            raise IllegalAction(f"{where} must be an object such as {{\"buy_in\": \"Ann\", \"chips\": 100}}")
        actions = [k for k in FILE_BANK_KEYS if k in entry]
        if len(actions) != 1:
            raise IllegalAction(f"{where} must hold one of {', '.join(repr(k) for k in FILE_BANK_KEYS)}")
        key = actions[0]
        allowed = {key} if key == "everyone_buys_in" else {key, "chips"}
        if (unknown := unknown_key(entry, allowed)) is not None:
            raise IllegalAction(f"{where} ({key}): unknown key '{unknown}'")
        if key == "everyone_buys_in":
            payload: dict[str, Any] = {"chips": entry[key]}
        else:
            if not isinstance(entry[key], str):
                raise IllegalAction(f"{where} ({key}): '{key}' must be a seated player's name")
            payload = {"player": entry[key], "chips": entry.get("chips")}
        add(FILE_BANK_KEYS[key], payload, f"{where} ({key})")
    if on is not None and on != ledger.settle_on:
        add(MODE_KIND, {"on": on}, "'settle_on'")
    rounds = data.get("bonus", [])
    if not isinstance(rounds, list):
        raise IllegalAction("'bonus' must be a list of grids, each with the rolls made under it")
    for index, entry in enumerate(rounds):
        where = f"'bonus'[{index}]"
        if not isinstance(entry, dict):
            raise IllegalAction(f"{where} must be an object with 'grid', 'lucky_chips' and 'rolls'")
        if (unknown := unknown_key(entry, {"grid", "lucky_chips", "rolls"})) is not None:
            raise IllegalAction(f"{where}: unknown key '{unknown}'")
        add("bonus_grid", {"grid": entry.get("grid"), "lucky_chips": entry.get("lucky_chips", 1)}, where)
        rolls = entry.get("rolls", [])
        if not isinstance(rolls, list):
            raise IllegalAction(f"{where}: 'rolls' must be a list")
        grid = ledger.grid
        assert grid is not None
        for number, raw in enumerate(rolls):
            at = f"{where}.'rolls'[{number}]"
            try:
                action = read_entry(grid, raw)
            except IllegalAction as error:
                raise IllegalAction(f"{at}: {error}") from None
            if isinstance(action, SetLucky):
                add("bonus_lucky", {"player": action.player, "faces": list(action.faces)}, at)
            else:
                add("bonus_roll", action.to_dict(), at)
    if "tab_cleared" in data:
        for index, (kind, payload) in enumerate(night_tab.read_file_entries(data["tab_cleared"], players, ledger.money)):
            add(kind, payload, f"'tab_cleared'[{index}]")
    return ledger, events


def file_events(ledger: NightLedger) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The events a night file of ``ledger`` holds, in the order and under the numbers (1…n) its reader gives
    them: :func:`file_keys` read back by :func:`read_file_keys`.  A stored night's own log numbers its events
    among the games' and names a cancelled bank line by that number; a file holds the live lines alone, so
    what is written of a stored night is read from this, never from its log renumbered."""
    _, events = read_file_keys(
        file_keys(ledger), ledger.players, ledger.chip_value, ledger.currency, chip_by_chip=ledger.chip_by_chip
    )
    return tuple(events)


@dataclass(frozen=True)
class CountsSettlement:
    """How the night stands on chip counts: what the bank page, the report and ``flask replay`` read.

    ``tally`` is None unless every game of the night is recorded chip by chip (only then is each
    count checked against bought + the tally); ``results`` (counts − bought, adjusted for a
    carried pot, every seated player) is None until the bank balances; ``block`` says why the
    night cannot settle on the counts (None on the tally, or when it can)."""

    tally: dict[str, int] | None
    check: BankCheck
    results: dict[str, int] | None
    block: str | None


def settle_on_counts(
    ledger: NightLedger,
    games_net: Mapping[str, int],
    chip_by_chip: bool,
    in_pot: Mapping[str, int] | None = None,
) -> CountsSettlement:
    """The bank's check and results for a night whose games closed at ``games_net``.

    ``chip_by_chip``: every game of the night records each chip (a game kind says otherwise
    with ``records_chips = False``).  ``in_pot``: the chips a carried pot takes out of the
    players' stacks (``NightPlay.left_in_pot``)."""
    seated = ledger.players
    tally = {p: games_net.get(p, 0) + ledger.bonus_net.get(p, 0) for p in seated} if chip_by_chip else None
    check = ledger.bank.check(tally, in_pot)
    results = None
    if ledger.bank.bought and check.balanced:
        counted = ledger.bank.results(tally, in_pot)
        results = {p: counted.get(p, 0) for p in seated}
    block = None
    if ledger.settle_on == BANK:
        if not ledger.bank.bought:
            block = "nobody has bought in yet: record the buy-ins, then each player's count."
        elif not check.balanced:
            block = check.message
    return CountsSettlement(tally, check, results, block)


#: what the night's own ledger adds beside its games, as the report and the players' page name it:
#: (the report line's title, what it is)
BANK_LINE = ("The bank", "each count less the chips bought, less the games above")
BONUS_LINE = ("Bonus Round", "its payments")
#: what the bank's line is, in one sentence, where it is shown without the night's report and its line beside it
#: (the group's season, game by game): never mistaken for chips bought from the bank or cashed into it
BANK_LINE_MEANS = (
    "on a night settled on chip counts, each player's count less the chips they bought, less what the night's "
    "games gave them: chips won or lost at the table beyond what the app recorded (poker's pots, the Bonus "
    "Round's payments made in chips), never the chips bought from the bank or cashed into it"
)


class ExtraLine(NamedTuple):
    """What the night's own ledger adds beside its games: ``title``, ``chips`` per player (summing to 0) and
    ``what`` it is (:data:`BANK_LINE`, :data:`BONUS_LINE`).

    ``direct``: the Bonus Round's payments within it, player to player (payer, payee, chips) in the order
    rolled, and ``direct_title`` what made them ("Bonus Round"): they passed between two players directly, so
    the pair-by-pair view pays them as made; the rest of the line (the bank's counts beyond the games and
    the Bonus Round) is squared in the fewest payments.  Read by index too: (title, chips, what)."""

    title: str
    chips: dict[str, int]
    what: str
    direct: tuple[tuple[str, str, int], ...] = ()
    direct_title: str = ""


def extra_line(
    ledger: NightLedger, games_net: Mapping[str, int], results: Mapping[str, int] | None, block: str | None
) -> ExtraLine | None:
    """What the night's own ledger adds beside its games, if anything (:class:`ExtraLine`).

    On chip counts that balance, the bank's results less the games' balances (``results`` and
    ``block`` as :func:`settle_on_counts` gives them: the Bonus Round's payments, made with the
    chips on the table, are in the counts and so in this line, named apart in ``direct``);
    otherwise the Bonus Round's payments: while the counts do not balance yet, the standings are the
    app's tally (what each count will be checked against), and the report says why it shows no plan.
    The report, the players' page and a group's night (:mod:`companion.group.result`) all read it
    here, so they cannot disagree.
    """
    players = ledger.players
    if ledger.settle_on == BANK and block is None:
        counted = results or {}
        (title, what), chips = BANK_LINE, {p: counted.get(p, 0) - games_net.get(p, 0) for p in players}
    else:
        (title, what), chips = BONUS_LINE, {p: ledger.bonus_net.get(p, 0) for p in players}
    if not any(chips.values()):
        return None
    direct = ledger.bonus_payments
    return ExtraLine(title, chips, what, direct, BONUS_LINE[0] if direct else "")


def replay_extras(
    events: Any,
    seated: tuple[str, ...],
    games_net: Mapping[str, int],
    summary: dict[str, Any],
    chip_by_chip: bool = True,
    in_pot: Mapping[str, int] | None = None,
) -> dict[str, int] | None:
    """What ``flask replay`` adds for a file's night ledger: the Bonus Round's payments (on the
    tally they add to the games' balances) and, on chip counts, the bank (the balances are then
    counts − bought, checked against bought + the tally).  Updates ``summary``'s players and
    returns the night's balances, or None while the bank does not balance (no payments)."""
    ledger = NightLedger(tuple(seated), Decimal("0"), chip_by_chip=chip_by_chip)
    for seq, (kind, payload) in enumerate(events, start=1):
        if kind != TAB_CLEARED:  # settled after the night: its balances are what the night left open
            ledger.apply(seq, kind, payload)
    tally = {p: games_net.get(p, 0) + ledger.bonus_net.get(p, 0) for p in seated}
    if ledger.rounds:
        summary["bonus"] = {"net_chips": dict(ledger.bonus_net), "rolls": len(ledger.rolls)}
    balances: dict[str, int] | None = tally
    if ledger.settle_on == BANK:
        counts = settle_on_counts(ledger, games_net, chip_by_chip, in_pot)
        bank: dict[str, Any] = {"bought": counts.check.bought, "cashed_out": counts.check.cashed_out}
        if not ledger.bank.bought:
            bank["not_settled"] = "nobody has bought in"
        elif counts.block is not None:
            bank["not_settled"] = counts.block
        balances = counts.results
        summary["settle_on"] = BANK
        summary["bank"] = bank
    if balances is not None:
        summary["players"] = {name: {"net_chips": chips} for name, chips in balances.items()}
    return balances
