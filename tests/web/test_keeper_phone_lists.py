"""A keeper phone's home page and *Past nights* list the night it opened by its own link (issue 39, docs/keepers.md).

Each phone is a test client of its own (its own session cookie): the first phone starts the night and makes
Ben's phone a keeper link; Ben's phone opens it.  Ben's lists then open the night by Ben's own link, never the
first link, which no page Ben's phone is answered carries; a link taken back (or replaced) lists the night no
more, on the phone that held it alone.

The night played: Napalm, Ann, Ben, Cat and Dan, Ann deals, ante 1, 1 token wins, a chip 0.25 EUR
(tests/pages.py's form).  Ben's phone records the first stage: antes 1 each (pot 4), Ben alone says Yes; his
token is the 1 that wins, so game 1 ends at once and Ben takes the pot: Ben +3 chips (+0.75 EUR), Ann, Cat and
Dan -1 each (-0.25 EUR): three payments to Ben, none marked paid.
"""

from __future__ import annotations

import html as markup
import json
import re

from flask.testing import FlaskClient

from pages import TablePage
from web.test_carried_pot import carry_form, play_friday
from web.test_keeper_phones import make_phone, take_back


#: the night's name, in no placeholder of the front door ("Friday game")
NIGHT = "Thursday at Dan's"


def _text(response) -> str:  # type: ignore[no-untyped-def]
    return markup.unescape(response.get_data(as_text=True))


def listed_links(client: FlaskClient, path: str = "/") -> list[str]:
    """The scorekeeper links a list page opens nights by (``/k/<key>``, what follows the key dropped)."""
    return sorted({found for found in re.findall(r'href="(/k/[A-Za-z0-9_-]+)', _text(client.get(path)))})


def phone_id(client: FlaskClient, url: str, name: str) -> str:
    """The id the share page (opened at ``url``) gives the keeper phone named ``name``."""
    share = _text(client.get(f"{url}/share"))
    return re.search(rf'id="phone-(\d+)"><strong>{re.escape(name)}</strong>', share).group(1)


def test_a_second_phone_lists_the_night_by_its_own_link_on_its_home_page_and_past_nights(start_night, client, app):
    table = start_night(name=NIGHT, tokens_to_win="1")
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    assert listed_links(other) == []  # a phone given a link, not yet opened: nothing of the night
    phone = TablePage(other, ben)
    phone.declare("Ben")  # by hand (module docstring): Ben +3 chips, +0.75 EUR; three payments to Ben
    home = _text(other.get("/"))
    assert NIGHT in home and listed_links(other) == [ben]  # its own link, and nothing else
    nights = _text(other.get("/nights"))
    assert "0 of 3 payments marked paid" in nights and f'href="{ben}/report"' in nights
    assert listed_links(other, "/nights") == [ben]
    player = other.get("/players/Ben")
    assert player.status_code == 200 and "0.75 EUR<br><small>+3 chips" in _text(player) and f'href="{ben}/report#player-' in _text(player)
    for path in ("/", "/nights", "/players/Ben", "/players/Ann"):  # never the first link, on any list
        assert table.key not in other.get(path).get_data(as_text=True), path
    # tapping it opens the night by the phone's own link: the table, recorded by it, with no trace of the first
    opened = other.get(listed_links(other)[0])
    assert opened.status_code == 200 and table.key not in opened.get_data(as_text=True)
    report = other.get(f"{ben}/report")
    assert report.status_code == 200 and table.key not in report.get_data(as_text=True)
    # the first phone lists it by the first link, as before; a browser that opened neither lists nothing
    assert listed_links(client) == [table.url] and ben not in client.get("/nights").get_data(as_text=True)
    stranger = app.test_client()
    assert listed_links(stranger) == [] and stranger.get("/players/Ben").status_code == 404


def test_the_second_phones_cookie_holds_neither_link(start_night, client, app):
    table = start_night(name=NIGHT)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben)
    other.get("/")
    cookie = other.get_cookie("session")
    session = app.session_interface.get_signing_serializer(app).loads(cookie.value)
    seen = json.dumps(session)
    assert ben.rsplit("/", 1)[1] not in seen and table.key not in seen
    assert len(session["nights"]) == 1  # one night: (its id, an opaque mark of the link the phone holds)


def test_a_link_taken_back_lists_the_night_no_more_on_that_phone_alone(start_night, client, app):
    table = start_night(name=NIGHT, tokens_to_win="1")
    ben = make_phone(client, table, "Ben's phone")
    cat = make_phone(client, table, "Cat's phone")
    bens, cats = app.test_client(), app.test_client()
    TablePage(bens, ben).declare("Ben")
    TablePage(cats, cat)
    assert listed_links(bens) == [ben] and listed_links(cats) == [cat]
    response, _ = take_back(client, table.url, phone_id(client, table.url, "Ben's phone"))
    assert response.status_code == 303
    # Ben's phone was sent away: its lists show nothing of the night (not its name, not its results)
    for path in ("/", "/nights"):
        page = _text(bens.get(path))
        assert NIGHT not in page and "/k/" not in page, path
    assert "No nights yet on this phone" in _text(bens.get("/nights"))
    assert bens.get("/players/Ben").status_code == 404
    # the others keep their lists, each by its own link
    assert listed_links(cats) == [cat] and listed_links(client) == [table.url]
    assert "0 of 3 payments marked paid" in _text(cats.get("/nights"))


def test_a_phone_that_hands_over_and_leaves_lists_the_night_no_more(start_night, client, app):
    table = start_night(name=NIGHT)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben)
    mine = phone_id(other, ben, "Ben's phone")
    response, asked = take_back(other, ben, mine)
    assert "hand the table over and leave?" in asked and response.status_code == 303
    assert listed_links(other) == [] and NIGHT not in _text(other.get("/"))
    assert listed_links(client) == [table.url]


def test_when_the_first_phone_leaves_the_second_phone_still_lists_the_night(start_night, client, app):
    table = start_night(name=NIGHT)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben)
    response, _ = take_back(client, table.url, "first")
    assert response.status_code == 303
    assert listed_links(client) == [] and NIGHT not in _text(client.get("/nights"))
    assert listed_links(other) == [ben] and listed_links(other, "/nights") == [ben]


def test_a_phone_that_replaces_its_own_link_lists_the_night_by_the_new_one_even_if_the_answer_is_lost(
    start_night, client, app
):
    table = start_night(name=NIGHT)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben)
    share = _text(other.get(f"{ben}/share"))
    request_key = re.search(r'name="request_key" value="([A-Za-z0-9_-]{43})"', share).group(1)
    response = other.post(f"{ben}/rotate", data={"which": "keeper", "request_key": request_key})
    assert response.status_code == 303  # the redirect is never followed
    new = response.headers["Location"].removesuffix("/share")
    assert new != ben and other.get(ben).status_code == 404
    assert listed_links(other) == [new] and listed_links(other, "/nights") == [new]
    assert listed_links(client) == [table.url]  # the first phone's link is not touched


def test_the_first_phone_opening_a_keeper_link_it_made_lists_the_night_once_by_the_last_link_opened(
    start_night, client
):
    """One browser, one entry a night: it holds the link it opened last (a phone passed from hand to hand)."""
    table = start_night(name=NIGHT)
    ben = make_phone(client, table, "Ben's phone")
    client.get(ben)
    assert listed_links(client) == [ben]
    client.get(table.url)
    assert listed_links(client) == [table.url]


def test_a_night_a_second_phone_carried_on_never_shows_it_the_first_nights_first_link(start_night, client, app):
    """Ben's phone carries Friday's pot on (tests/web/test_carried_pot.py's night): the new night is its own, opened
    by the new night's first link.  Its report names Friday as the night the pot came from, and links it by the
    link Ben's phone holds (its own keeper link), never by Friday's first link, which Ben's phone was never given
    and which would outlive its own link taken back.  Likewise the other way: a night is linked to another by the
    link the browser holds to that one, else named alone."""
    table = start_night(unfinished_pot="carry")
    play_friday(table)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    action, fields = carry_form(other.get(f"{ben}/report").get_data(as_text=True))
    assert action == f"{ben}/carry"
    started = other.post(action, data=fields)
    assert started.status_code == 303
    new = started.headers["Location"]  # the new night's first link: Ben's phone started it, it is its own
    new_report = other.get(f"{new}/report")
    assert new_report.status_code == 200 and "Friday" in _text(new_report)
    assert table.key not in new_report.get_data(as_text=True)
    assert f'href="{ben}/report">Friday</a>' in _text(new_report)  # Friday by the link Ben's phone holds
    # Friday's pages say where the pot went: linked for Ben's phone (it holds the new night's link), named
    # alone for the first phone, which never opened the new night and was given no link to it
    assert f'href="{new}">“Friday (continued)”</a>' in _text(other.get(f"{ben}/report"))
    assert f'href="{new}">' in _text(other.get(ben))
    for page in (client.get(f"{table.url}/report"), client.get(table.url)):
        said = _text(page)
        assert "“Friday (continued)”" in said and new not in said


def test_a_keeper_phone_of_a_night_the_first_phone_carried_on_is_not_handed_the_new_nights_link(
    start_night, client, app
):
    """The first phone carries Friday's pot on: the new night is the first phone's, linked on its Friday pages.
    Ben's phone keeps Friday, not the new night: Friday's table and report name the new night to it, unlinked."""
    table = start_night(unfinished_pot="carry")
    play_friday(table)
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben)
    action, fields = carry_form(client.get(f"{table.url}/report").get_data(as_text=True))
    new = client.post(action, data=fields).headers["Location"]
    assert f'href="{new}">' in _text(client.get(f"{table.url}/report")) and f'href="{new}">' in _text(client.get(table.url))
    for page in (other.get(f"{ben}/report"), other.get(ben)):
        said = _text(page)
        assert page.status_code == 200 and "\u201cFriday (continued)\u201d" in said
        assert new not in said and table.key not in said
    assert listed_links(other) == [ben]  # its list is Friday alone, by its own link


def keeping_score(client: FlaskClient) -> list[str]:
    """*Past nights*' line of which phones keep score, one per night that has more than its first phone."""
    return re.findall(r'<p class="muted keepers">Keeping score: ([^<]*)</p>', _text(client.get("/nights")))


def test_past_nights_says_which_phones_keep_score_on_every_phone_that_lists_the_night(start_night, client, app):
    table = start_night(name=NIGHT)
    assert keeping_score(client) == []  # the first phone alone: said by nobody's name
    ben = make_phone(client, table, "Ben's phone")
    cat = make_phone(client, table, "Cat's phone")
    assert keeping_score(client) == ["the first phone, Ben's phone, Cat's phone"]  # in the order the links were made
    other = app.test_client()
    TablePage(other, ben)
    assert keeping_score(other) == ["the first phone, Ben's phone, Cat's phone"]
    # Cat's phone is lost: its link taken back, the line drops it on both phones
    response, _ = take_back(client, table.url, phone_id(client, table.url, "Cat's phone"))
    assert response.status_code == 303
    assert keeping_score(client) == keeping_score(other) == ["the first phone, Ben's phone"]
    # the first phone hands over and leaves: Ben's phone alone keeps score, and its list says so
    response, _ = take_back(client, table.url, "first")
    assert response.status_code == 303
    assert keeping_score(other) == ["Ben's phone"]
    assert cat not in other.get("/nights").get_data(as_text=True)
