"""The end of a night: where the pot of an unfinished game goes.

RULES.md leaves it to the group: return each player's antes (the default), carry
the pot to the next night, or split it among the players with the most tokens,
odd chips by seat order from the dealer's left.  Whatever the choice, no chip
vanishes: the closing balances plus any carried pot sum to zero.

Each player's *stake* is what they have in the unfinished pot: their antes in
that game and, when it is the night's first game, their share of a pot carried
in from the previous night.  Without a carried-in pot everyone antes alike, so
returning the antes is an even split; with one it is not, and each player gets
back exactly their own stake.

"carry" sets the pot aside: tonight's plan leaves it out (each player's stake
counts as returned tonight) and :attr:`Closing.carried_shares` is what the next
night starts with (``Table(..., carried_in=closing.carried_shares)``): the
whole pot, each contributor's share being their stake in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.money.amounts import chips_text

from .table import Phase, Stage, Table

CHOICES = {
    "return_antes": "each player's antes in the unfinished game are returned",
    "split_leaders": "the pot is split among the players with the most tokens",
    "carry": "the pot is carried to the next night and left out of tonight's plan",
}
#: The same choices in a few words, for a select that fits a 360-px phone.
LABELS = {
    "return_antes": "Return each player's antes",
    "split_leaders": "Split among the token leaders",
    "carry": "Carry to the next night",
}


@dataclass(frozen=True)
class Closing:
    """Each player's net chips once the unfinished pot is dealt with."""

    choice: str
    pot: int
    net: dict[str, int]  # closing balances, summing to 0 (with "carry", each stake counts as returned)
    shares: dict[str, int]  # chips each player receives from the pot tonight (0 for "carry")
    carried: int  # chips left in the pot for the next night
    note: str
    #: each player's chips in the unfinished pot: antes, and a carried-in share in the first game
    stakes: dict[str, int] = field(default_factory=dict)

    @property
    def carried_shares(self) -> dict[str, int]:
        """With "carry": who the carried pot's chips belong to (the next night's ``carried_in``); else {}."""
        if not self.carried:
            return {}
        return {name: chips for name, chips in self.stakes.items() if chips and not self.shares.get(name)}


def close_night(
    table: Table, choice: str = "return_antes", carried_on: Mapping[str, int] | None = None
) -> Closing:
    """Where the unfinished pot goes at the end of the night.

    ``carried_on``, for "carry" once the next night exists, is the pot that night
    started with, by contributor: a contributor left out of it (not seated the next
    night) gets their share back tonight, in this night's settle-up; the rest is
    carried (issue 14, item 16).
    """
    if choice not in CHOICES:
        raise ValueError(f"unknown choice for the unfinished pot: {choice!r}")
    pot = table.pot
    net = dict(table.net_chips)
    stakes = table.in_pot
    if sum(stakes.values()) != pot:  # pragma: no cover - the engine keeps them equal
        raise ValueError(f"the stakes in the pot add up to {sum(stakes.values())}, the pot is {pot}")
    shares = {name: 0 for name in table.players}
    if pot == 0:
        return Closing(choice, 0, net, shares, 0, "No game was left unfinished with chips in the pot.", stakes)
    tokens = table.tokens
    nobody_leads = choice == "split_leaders" and max(tokens.values()) == 0
    if choice == "split_leaders" and not nobody_leads:
        most = max(tokens.values())
        leaders = [name for name in order_from_last_dealer(table) if tokens[name] == most]
        base, odd = divmod(pot, len(leaders))
        for index, name in enumerate(leaders):
            shares[name] = base + (1 if index < odd else 0)
    else:
        # "return_antes": each gets their own stake back.  "carry": the chips stay in
        # the pot, but each player's stake in it is still theirs, so tonight's plan
        # counts it as returned (and the report says so).
        shares = dict(stakes)
    for name, share in shares.items():
        net[name] += share
    note = f"Unfinished game: pot of {chips_text(pot)}; {CHOICES[choice]}"
    carried = 0
    if choice == "carry":
        # nothing is handed out tonight, except the share of a contributor the next night left out
        back = {n: c for n, c in stakes.items() if c and carried_on is not None and n not in carried_on}
        shares = {name: back.get(name, 0) for name in table.players}
        carried = pot - sum(back.values())
        note += f" ({chips_text(carried)} {'stays' if carried == 1 else 'stay'} in the pot; tonight's balances leave out the antes in it)."
        if back:
            note += " Not seated at the next night, " + ", ".join(
                f"{n} gets {c} chip{'' if c == 1 else 's'}" for n, c in back.items()
            ) + " back tonight, in this settle-up; the rest is carried."
    elif nobody_leads:
        note += "; nobody holds a token, so each player's antes are returned"
        note += f" ({', '.join(f'{n} {c}' for n, c in stakes.items() if c)})."
    elif choice == "split_leaders":
        note += f" ({', '.join(f'{n} {shares[n]}' for n in leaders)})."
    elif len(set(stakes.values())) == 1:
        note += f" ({pot // len(stakes)} each)."
    else:
        given = ", ".join(f"{n} {c}" for n, c in stakes.items() if c)
        note += f" ({given}"
        if table.carried_in and table.game_number == 1:
            note += ", the pot carried in from the previous night included"
        note += ")."
    return Closing(choice, pot, net, shares, carried, note, stakes)


def order_from_last_dealer(table: Table) -> tuple[str, ...]:
    """Seats from the left of the dealer of the last hand played, that dealer last.

    The odd chips of a split go one each in this order (issue 14, item 15).  The last
    hand played is the one in progress once any of its stages is recorded; before that
    the button has already moved one seat on from the hand that was played, whether or
    not that hand's stage 3 was recorded (a game won at stage 1 ends its hand too), so
    the odd chips count from the seat before the current dealer.  With nothing played
    at all, the first dealer is that dealer.
    """
    players = table.players
    n = len(players)
    dealer = players.index(table.dealer)
    started = table.stage is not Stage(1) or table.phase is not Phase.DECLARE
    if not started and table.live_records():
        dealer = (dealer - 1) % n
    return tuple(players[(dealer + i) % n] for i in range(1, n + 1))
