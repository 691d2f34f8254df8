"""The scorekeeper's screen driven at random (Hypothesis state machine) through the test client.

Each example starts a night with random seating and rules, then takes up to 40
random steps: legal and illegal declarations, challenges, winners, ties and cards,
undos, stale screens, doubled taps, a form key reused with other content, an
export imported as a new night, broken imports, and a "restart" that forgets every
cached fold.  Before each step the outcome is predicted from a model
:class:`~companion.games.napalm.Table`; after each step the stored events are folded
again from the database and compared with the model and with the numbers on the
page, chips are counted, and a refused step must have left the log as it was.
"""

from __future__ import annotations

import io
import json
import urllib.parse
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from sqlalchemy import func, select

from companion import service as services
from companion.extensions import db
from companion.db.models import Event, Night
from companion.games.napalm import Challenge, Declare, Phase, Rules, Showdown, Table, Void
from companion.games.napalm.cards import RANKS, SUITS, Card
from companion.games.napalm.codec import GAME_KINDS, from_event
from companion.games.napalm.rankings import CARDS_PER_STAGE
from reliability.harness import assert_page_matches, backend_name, parse_table_page, record_figures, refusal_message

NAMES = ("Ann", "Ben", "Zoë", "Dan", "Eve")
STRANGER = "Zed"
DECK = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)
STALE_MESSAGE = "changed since this screen was shown"

names = st.lists(st.sampled_from(NAMES + (STRANGER,)), unique=True, max_size=4)

#: How often each kind of step comes: mostly the taps a scorekeeper makes, then mistakes and accidents.
MOVES = (
    ["tap"] * 8
    + ["wrong_tap"] * 2
    + ["undo", "cards", "stale_screen", "double_tap", "same_key_other_content"]
    + ["export_then_import", "broken_import", "restart"]
)


def make_machine(app, client, figures: Counter):  # type: ignore[no-untyped-def]
    class ScorekeeperScreen(RuleBasedStateMachine):
        """One phone on one night; the model says what every tap must do."""

        def __init__(self) -> None:
            super().__init__()
            self.url = ""
            self.night_id = 0
            self.model: Table | None = None
            self.events = 0
            self.html = ""
            self.old_stamps: list[dict[str, str]] = []
            self.last: tuple[str, dict[str, Any]] | None = None

        # --- helpers -----------------------------------------------------------------

        def _stored(self) -> tuple[int, int]:
            with app.app_context():
                count = db.session.scalar(select(func.count()).select_from(Event).where(Event.night_id == self.night_id))
                nights = db.session.scalar(select(func.count()).select_from(Night))
            return count, nights

        def _stamp(self, action: str) -> dict[str, str]:
            shown = parse_table_page(self.html)
            stamp = shown.forms.get(action) or shown.forms.get(shown.phase)
            assert stamp, f"no form on the page for {action}"
            return {"version": stamp["version"], "request_key": stamp["request_key"]}

        def _keep_spare_stamp(self, used: dict[str, str]) -> None:
            """Keep a form of this screen that is not submitted now: submitted later, it is stale."""
            for stamp in parse_table_page(self.html).forms.values():
                if stamp.get("request_key") and stamp["request_key"] != used["request_key"]:
                    self.old_stamps.append({"version": stamp["version"], "request_key": stamp["request_key"]})
                    return

        def _post(self, action: str, data: dict[str, Any], legal: bool | None, stamp: dict[str, str] | None = None) -> Any:
            """Post ``data`` to ``action``; ``legal`` is the model's verdict (None: a stale screen)."""
            stamp = stamp or self._stamp(action)
            self._keep_spare_stamp(stamp)
            response = client.post(f"{self.url}/{action}", data={**stamp, **data})
            figures["steps"] += 1
            if legal:
                assert response.status_code == 303, (action, data, response.status_code, refusal_message(_answer(response)))
                self.events += 1
                self.last = (action, {**stamp, **data})
                figures["accepted"] += 1
            else:
                expected = 409 if legal is None else 422
                assert response.status_code == expected, (action, data, response.status_code)
                assert refusal_message(_answer(response)), "a refused submit must say why"
                # that it changed nothing is checked after every step: the log holds self.events events
                figures[f"refused_{expected}"] += 1
            return response

        def _push(self, action: Any) -> None:
            assert self.model is not None
            self.model.push(action)

        def _open(self, location: str) -> None:
            self.url = urllib.parse.urlsplit(location).path
            key = self.url.rsplit("/", 1)[-1]
            with app.app_context():
                night = db.session.scalar(select(Night).where(Night.keeper_key == key))
                self.night_id = night.id
                game = night.first_game
                self.model = Table(night.players, game.first_dealer,
                                   Rules(game.rules["ante"], game.rules["ante_every"], game.rules["tokens_to_win"]))
                for event in db.session.scalars(select(Event).where(Event.night_id == night.id).order_by(Event.seq)):
                    if event.kind in GAME_KINDS:
                        self.model.push(from_event(event.kind, event.payload))
                self.events = night.version
            self.old_stamps = []
            self.last = None
            self.html = client.get(self.url).get_data(as_text=True)

        # --- the night -------------------------------------------------------------

        @initialize(
            seats=st.integers(min_value=2, max_value=5),
            dealer=st.integers(min_value=1, max_value=5),
            ante=st.integers(min_value=0, max_value=3),
            ante_every=st.sampled_from(["1", "2"]),
            tokens=st.integers(min_value=1, max_value=3),
        )
        def start(self, seats: int, dealer: int, ante: int, ante_every: str, tokens: int) -> None:
            form = {f"seat_{i + 1}": NAMES[i] for i in range(seats)}
            form.update(name="Property night", first_dealer=str(min(dealer, seats)), ante=str(ante),
                        ante_every=ante_every, tokens_to_win=str(tokens), chip_value="0.5", currency="EUR",
                        unfinished_pot="return_antes")
            response = client.post("/nights", data=form)
            assert response.status_code == 303
            figures["nights"] += 1
            self._open(response.headers["Location"])

        # --- recording -------------------------------------------------------------------

        @rule(move=st.sampled_from(MOVES), data=st.data())
        def step(self, move: str, data: Any) -> None:
            """One step; MOVES weighs them so that most taps are the ones a scorekeeper makes."""
            getattr(self, move)(data)

        def tap(self, data: Any) -> None:
            """A tap that fits the screen: who said Yes, who challenged, who won (or a tie, or cards)."""
            assert self.model is not None
            seated = list(self.model.players)
            if self.model.phase is Phase.DECLARE:
                yes = data.draw(st.lists(st.sampled_from(seated), unique=True, max_size=len(seated)), label="yes")
                self.declare(yes, nobody=not yes)
            elif self.model.phase is Phase.CHALLENGE:
                others = [n for n in seated if n != self.model.dealer]
                self.challenge(data.draw(st.lists(st.sampled_from(others), unique=True), label="challengers"),
                               nobody=data.draw(st.booleans(), label="nobody"))
            else:
                how = data.draw(st.sampled_from(["winner", "winner", "tie", "cards", "cards"]), label="how")
                if how == "winner":
                    self.winner(data.draw(st.sampled_from(self.model.yes), label="winner"))
                elif how == "tie":
                    self.tie(data.draw(st.lists(st.sampled_from(self.model.yes), unique=True, min_size=1), label="tie"))
                else:
                    self.cards(data)

        def wrong_tap(self, data: Any) -> None:
            """Any action route with any names, seated or not: mostly illegal now, and refused."""
            route = data.draw(st.sampled_from(["declare", "challenge", "winner", "tie"]), label="route")
            picked = data.draw(names, label="names")
            if route == "declare":
                self.declare(picked, nobody=data.draw(st.booleans(), label="nobody"))
            elif route == "challenge":
                self.challenge(picked, nobody=data.draw(st.booleans(), label="nobody"))
            elif route == "winner":
                self.winner(data.draw(st.sampled_from(NAMES + (STRANGER,)), label="winner"))
            else:
                self.tie(picked)

        def declare(self, yes: list[str], nobody: bool) -> None:
            assert self.model is not None
            if nobody:
                action, data = Declare(()), {"nobody": "1"}
            else:
                action, data = Declare(tuple(yes)), {"yes": yes, "confirm": "1"}
            legal = (nobody or bool(yes)) and self.model.is_legal(action)
            if self._post("declare", data, legal).status_code == 303:
                self._push(action)

        def challenge(self, challengers: list[str], nobody: bool) -> None:
            assert self.model is not None
            if nobody:
                action, data = Challenge(()), {"nobody": "1"}
            else:
                action, data = Challenge(tuple(challengers)), {"challengers": challengers, "confirm": "1"}
            legal = (nobody or bool(challengers)) and self.model.is_legal(action)
            if self._post("challenge", data, legal).status_code == 303:
                self._push(action)

        def winner(self, winner: str) -> None:
            assert self.model is not None
            action = Showdown(winners=(winner,))
            if self._post("showdown", {"winner": winner}, self.model.is_legal(action)).status_code == 303:
                self._push(action)

        def tie(self, winners: list[str]) -> None:
            assert self.model is not None
            action = Showdown(winners=tuple(winners))
            legal = bool(winners) and self.model.is_legal(action)
            if self._post("showdown", {"winners": winners, "tie": "1"}, legal).status_code == 303:
                self._push(action)

        def cards(self, data: Any) -> None:
            """Cards for every Yes player: right ones (consistent with the hand so far) or spoiled ones."""
            assert self.model is not None
            position = self.model.position
            if self.model.phase is not Phase.SHOWDOWN:
                # no card fields on the page: the route must still refuse, and say why
                self._post("cards", {"cards_0": "As Kd"}, legal=False, stamp=self._stamp("undo"))
                return
            rnd = data.draw(st.randoms(use_true_random=False), label="shuffle")
            spoil = data.draw(st.sampled_from([None, None, None, "short", "twice", "garbage"]), label="spoil")
            need = CARDS_PER_STAGE[int(position.stage)]
            earlier = dict(position.shown)
            used = {card for held in earlier.values() for card in held}
            free = [card for card in DECK if card not in used]
            rnd.shuffle(free)
            hands: dict[str, list[Card]] = {}
            for name in position.yes:
                held = list(earlier.get(name, ()))
                while len(held) < need:
                    held.append(free.pop())
                rnd.shuffle(held)
                hands[name] = held
            texts = {name: " ".join(map(str, held)) for name, held in hands.items()}
            first, second = position.yes[0], position.yes[1]
            if spoil == "short":
                texts[first] = " ".join(map(str, hands[first][:-1]))
            elif spoil == "twice":
                texts[second] = " ".join(map(str, [hands[first][0]] + hands[second][1:]))
            elif spoil == "garbage":
                texts[first] = "<script>1x</script>"
            action = Showdown(cards=tuple(texts.items()))
            legal = self.model.is_legal(action)
            fields = {f"cards_{i}": texts[name] for i, name in enumerate(position.yes)}
            if self._post("cards", fields, legal).status_code == 303:
                self._push(action)
                figures["by_cards"] += 1

        def undo(self, data: Any = None) -> None:
            assert self.model is not None
            legal = self.model.can_void()
            if self._post("undo", {}, legal, stamp=self._stamp("undo")).status_code == 303:
                self._push(Void())

        # --- screens that are out of date, taps that come twice ---------------------------------

        def stale_screen(self, data: Any) -> None:
            """Submit 'Nobody said Yes' from a screen shown earlier and never submitted."""
            assert self.model is not None
            if not self.old_stamps:
                return
            pick = data.draw(st.integers(min_value=0, max_value=len(self.old_stamps) - 1), label="screen")
            stamp = self.old_stamps.pop(pick)
            if int(stamp["version"]) != self.events:
                response = self._post("declare", {"nobody": "1"}, legal=None, stamp=stamp)
                assert STALE_MESSAGE in response.get_data(as_text=True)
                return
            action = Declare(())
            if self._post("declare", {"nobody": "1"}, self.model.is_legal(action), stamp=stamp).status_code == 303:
                self._push(action)

        def double_tap(self, data: Any) -> None:
            """The same submit again (a doubled tap, a retried request): answered, recorded once."""
            if self.last is None:
                return
            action, form = self.last
            before = self._stored()
            response = client.post(f"{self.url}/{action}", data=form)
            figures["steps"] += 1
            figures["doubled"] += 1
            assert response.status_code == 303
            page = client.get(response.headers["Location"]).get_data(as_text=True)
            assert "Already recorded" in page
            assert self._stored() == before

        def same_key_other_content(self, data: Any) -> None:
            """A form key that comes back with other content is refused, and nothing is recorded."""
            if self.last is None:
                return
            action, form = self.last
            stamp = {"version": form["version"], "request_key": form["request_key"]}
            if action == "declare" and "nobody" in form:
                action, other = "declare", {**stamp, "yes": [self.model.players[0]], "confirm": "1"}
            elif action == "declare":
                action, other = "challenge", {**stamp, "nobody": "1"}
            else:
                action, other = "declare", {**stamp, "nobody": "1"}
            before = self._stored()
            response = client.post(f"{self.url}/{action}", data=other)
            figures["steps"] += 1
            assert response.status_code == 409, response.status_code
            assert refusal_message(_answer(response))
            assert self._stored() == before
            figures["refused_409"] += 1

        # --- files, and a restarted server ---------------------------------------------------------

        def export_then_import(self, data: Any) -> None:
            """The exported history, imported, is a new night that shows the same live standings."""
            export = client.get(f"{self.url}/export.json")
            assert export.status_code == 200
            response = client.post(
                "/import",
                data={"file": (io.BytesIO(export.data), "night.json"), "name": "Imported"},
                content_type="multipart/form-data",
            )
            figures["steps"] += 1
            figures["imports"] += 1
            assert response.status_code == 303, response.get_data(as_text=True)[:300]
            before = self.model
            self._open(response.headers["Location"])
            assert self.model is not None and before is not None
            assert self.model.position == before.position, "the imported night is not where the exported one was"

        def broken_import(self, data: Any) -> None:
            how = data.draw(st.sampled_from(["truncated", "nested", "not json", "wrong stage"]), label="broken")
            export = client.get(f"{self.url}/export.json").data
            if how == "truncated":
                body = export[: len(export) // 2]
            elif how == "nested":
                body = b'{"format": "napalm-hand-history/1", "players": ' + b"[" * 5000 + b"]" * 5000 + b"}"
            elif how == "not json":
                body = b"\xff\xfe<script>alert(1)</script>"
            else:
                document = json.loads(export)
                document["games"][0]["stages"].insert(0, {"stage": 3, "yes": []})  # export writes v2
                body = json.dumps(document).encode()
            before = self._stored()
            response = client.post("/import", data={"file": (io.BytesIO(body), "night.json")},
                                   content_type="multipart/form-data")
            figures["steps"] += 1
            figures["refused_import"] += 1
            assert response.status_code == 422
            assert refusal_message(_answer(response))
            assert self._stored() == before

        def restart(self, data: Any) -> None:
            """Forget every cached fold, as a restarted server would: the log alone must suffice."""
            services.clear_cache()
            figures["restarts"] += 1

        # --- after every step ----------------------------------------------------------------------

        @invariant()
        def page_shows_what_the_stored_log_folds_to(self) -> None:
            if self.model is None:
                return
            response = client.get(self.url)
            assert response.status_code == 200
            self.html = response.get_data(as_text=True)
            with app.app_context():
                night = db.session.get(Night, self.night_id)
                events = list(db.session.scalars(select(Event).where(Event.night_id == self.night_id).order_by(Event.seq)))
                game = night.first_game
                stored = Table(night.players, game.first_dealer,
                               Rules(game.rules["ante"], game.rules["ante_every"], game.rules["tokens_to_win"]))
                for event in events:
                    if event.kind in GAME_KINDS:
                        stored.push(from_event(event.kind, event.payload))
                version = night.version
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            assert version == len(events) == self.events, "an accepted step was lost or a refused one kept"
            assert stored.position == self.model.position, "the stored log folds to another table than the model"
            assert assert_page_matches(parse_table_page(self.html), stored, version) is None
            figures["checks"] += 1

    return ScorekeeperScreen


class _Answer:
    def __init__(self, body: str) -> None:
        self.body = body


def _answer(response: Any) -> _Answer:
    return _Answer(response.get_data(as_text=True))


def test_random_taps_keep_the_page_the_log_and_the_chips_in_agreement(app, client):
    figures: Counter = Counter()
    machine = make_machine(app, client, figures)
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=30,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    assert figures["accepted"] > 0 and figures["refused_422"] > 0 and figures["refused_409"] > 0
    record_figures(
        "stateful",
        {"examples_nights": figures["nights"], **{k: v for k, v in sorted(figures.items()) if k != "nights"}},
        backend_name(app.config["SQLALCHEMY_DATABASE_URI"]),
    )
