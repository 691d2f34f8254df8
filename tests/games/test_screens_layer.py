"""The table screen is game-agnostic: a game plays through the one action route with only its screens.

A throwaway screens object for the fixed-stake pot engine (a "winner" button per
player, and an action that is always refused) is registered for the test; the
table, the players' page, the history and the report then serve it with no other
change, and a refused or unknown action changes nothing.
"""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace

import jinja2
import pytest
from wtforms import SelectField
from wtforms.validators import InputRequired, NumberRange

from companion import service as services
from companion.extensions import db
from companion.web.forms import ActionForm, WholeNumberField
from companion.games.protocol import IllegalAction
from companion.games.napalm import Rules
from companion.games.napalm import hand_history
from companion.games.pots.engine import Win
from companion.games.web import SCREENS, BaseScreens, offer_matching, pick_of, read_pick
from companion.db.models import Night
from security.support import napalm_night
from seating import players_for

TABLE = """{% import "_macros.html" as m %}{% set f = forms.win %}
<form method="post" action="{{ act('win') }}">{{ m.hidden(f) }}{{ m.errors(f) }}
{% for v, label in f.winner.choices %}<button name="winner" value="{{ v }}" class="big">{{ label }} won</button>{% endfor %}</form>"""
PARTS = """{% macro status(st) %}<div class="dealer-name">{{ st.dealer }}</div>{% endmacro %}
{% macro columns(st) %}{% endmacro %}{% macro cells(st, p) %}{% endmacro %}{% macro mine(st, line) %}{% endmacro %}
{% macro recent_line(st, r) %}{{ r.summary }}{% endmacro %}{% macro notes(st) %}<p class="pots">{{ st.view.pot }} in the pot</p>{% endmacro %}
{% macro where(r) %}a deal{% endmacro %}"""


RULES = """{% import "_macros.html" as m %}<label>{{ form.ante.label.text }} {{ form.ante() }}</label>{{ m.field_errors(form.ante) }}"""


class HighCardRules:
    ante = WholeNumberField("Ante (chips)", default=1, validators=[InputRequired(), NumberRange(min=0, max=100)])


class WinnerForm(ActionForm):
    winner = SelectField(choices=[], validate_choice=True)


class WinnerScreens(BaseScreens):
    kind = "pots"
    rules_fields = HighCardRules
    rules_template = "test/rules.html"

    def rules_from_form(self, form):  # type: ignore[no-untyped-def]
        return {"preset": "high_card", "ante": form.ante.data}

    def fill_rules(self, form, rules):  # type: ignore[no-untyped-def]
        form.ante.data = rules["ante"]
    table_template = "test/table.html"
    parts_template = "test/parts.html"

    def describe_rules(self, rules):  # type: ignore[no-untyped-def]
        return f"ante {rules.get('ante')}"

    def view(self, state):  # type: ignore[no-untyped-def]
        return SimpleNamespace(prompt="Who won?", dealer=state.dealer, pot=state.pot)

    def _form(self, state, formdata=None):  # type: ignore[no-untyped-def]
        form = WinnerForm(formdata=formdata) if formdata is None else WinnerForm()
        form.winner.choices = [(n, n) for n in state.players]
        return form

    def forms(self, state):  # type: ignore[no-untyped-def]
        return {"win": self._form(state)}

    def bind(self, name, state, repeated):  # type: ignore[no-untyped-def]
        if name == "refuse":
            raise IllegalAction("this action is never possible")
        return self._form(state, formdata=True) if name == "win" else None

    def action(self, name, form, state):  # type: ignore[no-untyped-def]
        if form.winner.data == "Ann":
            raise IllegalAction("Ann cannot win in this test")
        return Win((form.winner.data,))


@pytest.fixture
def pot_night(app, monkeypatch):
    monkeypatch.setitem(SCREENS, "pots", WinnerScreens())
    app.jinja_loader = jinja2.ChoiceLoader(
        [app.jinja_loader, jinja2.DictLoader({"test/table.html": TABLE, "test/parts.html": PARTS, "test/rules.html": RULES})]
    )
    with app.app_context():
        night = napalm_night(
            "Pots", ["Ann", "Ben", "Cat"], "Ann", Rules(), hand_history.Settings(Decimal("0.5"), "EUR", "return_antes")
        )
        services.start_game(night.id, "pots", ["Ann", "Ben", "Cat"], "Ann", {"preset": "high_card"}, 0, services.new_key())
        return night.id, night.keeper_key, night.viewer_key


def _version(app, night_id: int) -> int:
    with app.app_context():
        return db.session.get(Night, night_id).version


def _post(client, key: str, action: str, version: int, **data: str):  # type: ignore[no-untyped-def]
    return client.post(f"/k/{key}/{action}", data={"version": str(version), "request_key": services.new_key(), **data})


def _nets(html: str) -> dict[str, str]:
    rows = re.findall(r'data-player="(\w+)">.*?class="num net[^"]*">([^<]+)<', html, re.S)
    return dict(rows)


def test_a_game_plays_through_the_one_action_route_with_only_its_screens(app, pot_night):
    night_id, key, viewer = pot_night
    client = app.test_client()
    page = client.get(f"/k/{key}").get_data(as_text=True)
    assert "Who won?" in page and 'action="/k/' + key + '/win"' in page
    # High Card: an ante of 1 from each of three players, pot 3; Ben takes it: Ben +2, Ann and Cat -1
    assert _post(client, key, "win", 1, winner="Ben").status_code == 303
    page = client.get(f"/k/{key}").get_data(as_text=True)
    assert _nets(page) == {"Ann": "-1", "Ben": "+2", "Cat": "-1"}
    # undo is the layer's, for every game; then Cat takes the next pot of 3 instead
    assert _post(client, key, "undo", 2).status_code == 303
    assert _post(client, key, "win", 3, winner="Cat").status_code == 303
    page = client.get(f"/k/{key}").get_data(as_text=True)
    assert _nets(page) == {"Ann": "-1", "Ben": "-1", "Cat": "+2"}
    players = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert _nets(players) == {"Ann": "-1", "Ben": "-1", "Cat": "+2"}
    history = client.get(f"/k/{key}/history").get_data(as_text=True)
    assert history.count("a deal") == 3  # the win, its undo, the second win
    report = client.get(f"/k/{key}/report").get_data(as_text=True)
    payments = re.findall(r'data-payer="(\w+)" data-payee="(\w+)" data-chips="(\d+)"', report)
    assert sorted(payments) == [("Ann", "Cat", "1"), ("Ben", "Cat", "1")]
    # the preset names the game; the Napalm the night began with has nothing in it: no game of the night (issue 35)
    assert "1st game (High Card)" in report and "2nd game" not in report


def test_a_refused_or_unknown_action_changes_nothing_and_says_why(app, pot_night):
    night_id, key, _ = pot_night
    client = app.test_client()
    refused = _post(client, key, "win", 1, winner="Ann")  # the screens refuse it
    assert refused.status_code == 422 and "Ann cannot win in this test" in refused.get_data(as_text=True)
    never = _post(client, key, "refuse", 1)  # bind refuses it
    assert never.status_code == 422 and "this action is never possible" in never.get_data(as_text=True)
    assert _post(client, key, "nonsense", 1).status_code == 404
    assert _post(client, key, "win", 1, winner="Zed").status_code == 422  # not a choice of the form
    assert _post(client, key, "win", 7, winner="Ben").status_code == 409  # a stale version
    assert _version(app, night_id) == 1


def test_a_night_can_start_with_any_game_that_has_screens_and_change_its_rules_before_play(app, pot_night):
    client = app.test_client()
    home = client.get("/?game=pots").get_data(as_text=True)
    # the First game list, part of the form that starts the night, shows the pot game picked
    assert re.search(r'<option value="pots" selected>', home) and 'name="rules_of" value="pots"' in home
    assert 'name="ante"' in home
    assert 'name="tokens_to_win"' not in home  # Napalm's rules are not asked for a pot game
    seats = {"seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat", "first_dealer": "2", "chip_value": "", "currency": ""}
    started = client.post("/nights", data={**seats, "game": "pots", "ante": "2", "request_key": services.new_key()})
    assert started.status_code == 303
    key = started.headers["Location"].rsplit("/", 1)[-1]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == key))
        game = night.first_game
        assert (game.kind, game.rules["preset"], game.rules["ante"], game.first_dealer) == ("pots", "high_card", 2, "Ben")
        assert len(night.games) == 1  # no empty Napalm game before it
    # before play, the setup page asks for the pot game's rules, and saves them
    setup = client.get(f"/k/{key}/setup").get_data(as_text=True)
    assert 'name="ante"' in setup and 'value="2"' in setup
    saved = client.post(f"/k/{key}/setup", data={**seats, "game": "pots", "ante": "3"})
    assert saved.status_code == 303
    # Ben deals; High Card at ante 3 from each of three: pot 9, Cat takes it: Cat +6, Ann and Ben -3
    page = client.get(f"/k/{key}").get_data(as_text=True)
    version = re.search(r'name="version"[^>]*value="(\d+)"', page).group(1)
    assert _post(client, key, "win", int(version), winner="Cat").status_code == 303
    assert _nets(client.get(f"/k/{key}").get_data(as_text=True)) == {"Ann": "-3", "Ben": "-3", "Cat": "+6"}


def test_a_night_for_a_game_the_app_does_not_offer_is_refused(app, pot_night):
    client = app.test_client()
    assert client.get("/?game=poker9").status_code == 400
    seats = {"seat_1": "Ann", "seat_2": "Ben", "first_dealer": "1", "request_key": services.new_key()}
    assert client.post("/nights", data={**seats, "game": "poker9"}).status_code == 400


def test_no_games_action_is_named_like_a_page_of_the_table(app):
    """POST /k/<key>/<action> is the action route only for names no route of the table takes first."""
    from companion.games import GAMES

    taken = {
        rule.rule.split("/")[3]
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/k/<key>/") and rule.endpoint != "table.act"
    }
    assert {"setup", "next-game", "rotate", "paid", "carry"} <= taken
    with app.test_request_context():
        for kind, screens in SCREENS.items():
            game = GAMES[kind]
            players = players_for(game, 2)  # each game as few as it seats
            state = game.new_state(players, players[0], game.rules_from_dict({}))
            names = set(screens.forms(state)) | {"undo"}
            assert not names & taken, (kind, names & taken)


def test_a_game_lists_value_names_the_kind_and_the_offer() -> None:
    """Issue 35: a game list's value is the kind alone, or the kind and one of its offers."""
    assert pick_of("pots", "high_card") == "pots:high_card" and pick_of("nap", None) == "nap"
    assert read_pick("pots:high_card") == ("pots", "high_card")
    assert read_pick("nap") == ("nap", None) and read_pick(None) == ("", None)
    # the offer whose rules the rules hold: NASDAQ's preset with an ante of 2; none matching: the first
    assert offer_matching("pots", {"preset": "nasdaq", "ante": 2}) == "nasdaq"
    assert offer_matching("pots", {"preset": "craps"}) == "tips_to_the_fat_one"
    assert offer_matching("nap", {"variant": "pool"}) is None  # Nap is offered once, by its title
