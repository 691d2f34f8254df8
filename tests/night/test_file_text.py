"""The night file written by extending the last version's text is the file written whole (issue 22).

:mod:`companion.night.file_text` keeps the text of each game's records and encodes only those
that changed since; the file must be byte for byte what :func:`companion.night.file.dumps`
writes, after every action of a long night of several games with undos (which drop a record
from the file, or change the last one) and games taken back between.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from companion.games import GAMES, IllegalAction
from companion.games.fold import Void
from companion.money.settle import Payment
from companion.night import file as nightfile
from companion.night import file_text
from companion.night.ledger import NightLedger
from companion.night.play import GameSetup, NightPlay, set_up_game

SEATED = ("Ann", "Ben", "Cat", "Dan")


def setup(kind: str, dealer: str = "Ann") -> GameSetup:
    return set_up_game(SEATED, kind, None, dealer, None)[0]


def test_the_text_in_a_record_is_laid_out_as_json_lays_it_out():
    # by hand: json.dumps(..., indent=2) puts a game's records 4 levels down, at 8 spaces
    assert file_text._encode({"a": [1, True], "b": "x\ny"}, 4) == (
        '{\n          "a": [\n            1,\n            true\n          ],\n          "b": "x\\ny"\n        }')
    # each item arrives indented (file_text.PAD, 8 spaces); the closing bracket sits at 6
    assert file_text._records_text(("        {}", "        1"), 4) == "[\n        {},\n        1\n      ]"
    assert file_text.PAD == " " * 8
    assert file_text._records_text((), 4) == "[]"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_file_extended_after_every_action_is_the_file_written_whole(seed: int):
    rng = random.Random(seed)
    play = NightPlay.begin(SEATED, setup("napalm"))
    ledger = NightLedger(SEATED, Decimal("0.25"), "EUR")
    ledger.apply(1, "all_buy_in", {"chips": 20})
    money = nightfile.Money(Decimal("0.25"), "EUR")
    name = "Ночь у Ани\n\"вторая\""  # a line break and quotes in a value: escaped in the text
    written = file_text.Written()
    undos = takebacks = starts = 0
    paid: list[Payment] = []
    for seq in range(1, 400):
        current = play.current
        roll = rng.random()
        try:
            if roll < 0.3 and len(play.played()) > 1 and not current.state.log:
                play.take_back(current.number)  # started by mistake
                takebacks += 1
            elif roll < 0.04:
                kind = rng.choice(sorted(GAMES))
                play.start(setup(kind, rng.choice(SEATED)))
                starts += 1
            elif roll < 0.25 and current.state.log:
                current.state.push(Void(), seq)
                undos += 1
            else:
                current.state.push(current.game.random_action(current.state, rng), seq)
        except IllegalAction:
            continue
        if seq % 97 == 0:  # a payment marked paid now and then: the file's "paid", after the ledger's keys
            paid.append(Payment(SEATED[0], SEATED[1], seq))
        if rng.random() < 0.3:
            continue  # not written at this version: the next file extends one written several actions before
        text, written = file_text.dumps(name, play, money, ledger, written, tuple(paid))
        assert text == nightfile.dumps(name, play, money, ledger, tuple(paid)), f"after action {seq}"
    text, written = file_text.dumps(name, play, money, ledger, written, tuple(paid))
    assert text == nightfile.dumps(name, play, money, ledger, tuple(paid))
    assert undos > 20 and starts > 3 and takebacks > 0, (undos, starts, takebacks)  # what it was meant to have
    assert len(play.games) > 3 and len(paid) > 2 and text.endswith(f'"chips": {paid[-1].chips}\n    }}\n  ]\n}}\n')


def test_what_an_earlier_version_wrote_is_never_changed():
    play = NightPlay.begin(SEATED, setup("napalm"))
    first, written = file_text.dumps(None, play, nightfile.Money(), None)
    kept = written.games
    play.current.state.push(play.current.game.random_action(play.current.state, random.Random(1)), 1)
    second, _ = file_text.dumps(None, play, nightfile.Money(), None, written)
    assert written.games == kept and first != second
    assert '"stages": []' in first and '"stages": [\n        {' in second
