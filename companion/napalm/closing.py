"""The end of a night: where the pot of an unfinished game goes.

RULES.md leaves it to the group: return each player's antes (the default;
everyone antes alike, so it is an even split), carry the pot to the next night
(it is set aside and left out of tonight's plan; the group seeds the next night's
pot with it by hand), or split it among the players with the most tokens, odd chips by seat order from
the dealer's left.  Whatever the choice, no chip vanishes: the closing balances
plus any carried pot sum to zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import Table

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
    net: dict[str, int]  # closing balances, summing to 0
    shares: dict[str, int]  # chips each player receives from the pot (0 for "carry")
    carried: int  # chips left in the pot for the next night
    note: str


def close_night(table: Table, choice: str = "return_antes") -> Closing:
    if choice not in CHOICES:
        raise ValueError(f"unknown choice for the unfinished pot: {choice!r}")
    pot = table.pot
    net = dict(table.net_chips)
    shares = {name: 0 for name in table.players}
    carried = 0
    if pot == 0:
        return Closing(choice, 0, net, shares, 0, "No game was left unfinished with chips in the pot.")
    order = table.declaration_order()
    if choice == "split_leaders":
        tokens = table.tokens
        most = max(tokens.values())
        leaders = [name for name in order if tokens[name] == most]
    else:
        leaders = list(order)
    base, odd = divmod(pot, len(leaders))
    for index, name in enumerate(leaders):
        shares[name] = base + (1 if index < odd else 0)
    if choice == "carry":
        # The chips stay in the pot; each player's ante in it is still theirs,
        # so tonight's plan counts them as returned and says so.
        carried = pot
    for name, share in shares.items():
        net[name] += share
    note = f"Unfinished game: pot of {pot} chips; {CHOICES[choice]}"
    if choice == "carry":
        note += f" ({pot} chips stay in the pot; tonight's balances leave out the antes in it)."
    elif choice == "split_leaders":
        note += f" ({', '.join(f'{n} {shares[n]}' for n in leaders)})."
    else:
        note += f" ({base} each)." if not odd else "."
    if choice == "carry":
        shares = {name: 0 for name in table.players}
    return Closing(choice, pot, net, shares, carried, note)
