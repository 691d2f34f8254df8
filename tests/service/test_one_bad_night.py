"""One bad night never breaks a group (issue 35, item 2).

The group "Fridays" of group_support: N1 (EUR at 0.25: Dan owes Ann 2.00), N2 (EUR at 0.10: Cat owes
Ben 1.00, Dan owes Ben 2.00), N3 (chips only: Ann owes Cat 5 chips).  By hand, the tab in EUR: Ann +2.00,
Ben +3.00, Cat −1.00, Dan −4.00; in chips: Ann −5, Cat +5.
"""

from __future__ import annotations

import json
import re
from html import unescape
from decimal import Decimal as D

import pytest
from sqlalchemy import select, update

from companion import service
from companion.db.models import Event, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.group.tab import Overpayment, TabPayment
from service.group_support import group, group_of_three, versions


def append_one_sided_record(night_id: int) -> None:
    """A ``tab_cleared`` event with no other side, stored as a night imported before imports were checked would
    have left it: Dan's 1.00 of a payment to Ben, with no record of Ben receiving it."""
    night = db.session.get(Night, night_id)
    seq = night.version + 1
    db.session.add(Event(night_id=night_id, game_id=None, seq=seq, kind="tab_cleared",
                         payload={"player": "Dan", "amount": "1.00", "payer": "Dan", "payee": "Ben", "ref": "X"}))
    db.session.execute(update(Night).where(Night.id == night_id).values(version=seq))
    db.session.commit()


def test_a_group_with_a_one_sided_record_shows_itself_offers_nothing_in_that_currency_and_refuses_paying_in_it(app, client):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        append_one_sided_record(n2)
        view = service.group_view(group(group_id))
        assert view.blocked == {"EUR": ["N2"]}
        assert view.tab.plan["EUR"] == ()
        assert [(p.payer, p.payee, p.amount) for p in view.tab.plan[None]] == [("Ann", "Cat", D(5))]
        with pytest.raises(Overpayment, match="in EUR while a night's records there do not add up"):
            service.pay_tab(group_id, [TabPayment("Dan", "Ann", "EUR", D("2.00"))], group(group_id).version, None)
        service.pay_tab(group_id, [TabPayment("Ann", "Cat", None, D(5))], group(group_id).version, None)
        after = service.group_view(group(group_id))
        assert None not in after.tab.balances and after.blocked == {"EUR": ["N2"]}  # chips square; EUR still held
        keys = group(group_id).organiser_key, group(group_id).member_key
    organiser = client.get(f"/g/{keys[0]}")
    assert organiser.status_code == 200
    page = " ".join(organiser.get_data(as_text=True).split())
    assert "Nothing is offered in EUR: N2 holds tab records the group cannot count" in page
    assert 'data-payer="Dan"' not in page  # no EUR payment, no Mark paid, no pay link
    assert client.get(f"/m/{keys[1]}").status_code == 200
    assert client.get(f"/g/{keys[0]}/export.json").status_code == 200


def test_a_night_holding_another_tabs_records_cannot_be_kept_in_a_group(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], group(group_id).version, None)
        # N2 exported alone carries its tab records (Dan +2.00, Ben −3.00...): imported, it is a night of its own
        alone = service.export_history(db.session.get(Night, n2))
        assert json.loads(alone)["tab_cleared"]
        copy = service.import_history(alone)
        with pytest.raises(IllegalAction, match="holds records of another group's tab"):
            service.keep_night(group_id, copy.id, group(group_id).version, None)
        with pytest.raises(IllegalAction, match="holds records of another group's tab"):
            service.open_group("Saturdays", from_night=db.session.get(Night, copy.id))


def test_the_organiser_takes_the_bad_night_out_and_the_rest_is_offered_again(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        append_one_sided_record(n2)
        night_version = db.session.get(Night, n2).version
        version = group(group_id).version
        done = service.leave_out_night(group_id, n2, version, "k" * 43)
        again = service.leave_out_night(group_id, n2, version, "k" * 43)  # a double tap: recorded once
        assert again.repeated and group(group_id).version == version + 1
        view = service.group_view(group(group_id))
        assert view.blocked == {} and [n.name for n in view.left_out] == ["N2"]
        assert [k.name for k in view.nights] == ["N1", "N3"]
        # EUR by hand without N2: Dan owes Ann 2.00
        assert [(p.payer, p.payee, p.amount) for p in view.tab.plan["EUR"]] == [("Dan", "Ann", D("2.00"))]
        # N2's own events stay with it (its payments, its record): taking it out appends to the group alone
        assert done.summary.startswith("N2 is taken out of the group")
        db.session.rollback()
        assert db.session.get(Night, n2).version == night_version
        # put back, its lone record would block EUR again: refused, nothing written
        with pytest.raises(IllegalAction, match="N2 was settled through the tab together with other nights"):
            service.put_back_night(group_id, n2, version + 1, None)
        assert group(group_id).version == version + 1


def test_a_good_night_goes_out_and_back_and_one_paid_with_others_cannot_go_alone(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        service.leave_out_night(group_id, n3, group(group_id).version, None)
        assert None not in service.group_view(group(group_id)).tab.plan  # N3 was the only night in chips
        service.put_back_night(group_id, n3, group(group_id).version, None)
        assert [(p.payer, p.payee, p.amount) for p in service.group_view(group(group_id)).tab.plan[None]] == [
            ("Ann", "Cat", D(5))]
        with pytest.raises(IllegalAction, match="N3 is counted in the group"):
            service.put_back_night(group_id, n3, group(group_id).version, None)
        # Dan pays Ben 3.00 EUR: his debts clear oldest first (N1 2.00, then N2 1.00), Ben's credit on N2 3.00
        service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], group(group_id).version, None)
        with pytest.raises(IllegalAction, match="N1 was settled through the tab together with other nights"):
            service.leave_out_night(group_id, n1, group(group_id).version, None)
        with pytest.raises(IllegalAction, match="not kept in the group"):
            service.leave_out_night(group_id, 999, group(group_id).version, None)


# --- a night's own Mark paid in a unit its group's tab cannot count (issue 35) --------------------------------


def paid_events(night_id: int) -> list[dict]:
    db.session.rollback()
    return list(db.session.scalars(select(Event.payload).where(Event.night_id == night_id, Event.kind == "paid")))


def test_a_night_marks_nothing_paid_in_a_currency_its_group_cannot_count_and_the_rest_as_usual(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        append_one_sided_record(n2)  # EUR blocked by N2 (the test above); chips not
        assert service.blocked_at(db.session.get(Night, n1)) == ("N2",)
        assert service.blocked_at(db.session.get(Night, n2)) == ("N2",)
        assert service.blocked_at(db.session.get(Night, n3)) == ()
        # N1's own plan (Dan pays Ann 8 chips = 2.00 EUR) is no longer marked paid at the night, nor N2's
        # (Cat pays Ben 10 chips = 1.00 EUR): refused, nothing recorded
        for night_id, payer, payee, chips in ((n1, "Dan", "Ann", 8), (n2, "Cat", "Ben", 10)):
            version = db.session.get(Night, night_id).version
            with pytest.raises(IllegalAction, match="nothing can be marked paid in EUR while N2 holds tab records"):
                service.mark_paid(night_id, payer, payee, chips, version, None)
            assert versions([night_id]) == [version] and paid_events(night_id) == []
        # N3 is played in chips, which the tab counts: Ann pays Cat 5 chips is marked as ever
        service.mark_paid(n3, "Ann", "Cat", 5, db.session.get(Night, n3).version, None)
        assert paid_events(n3) == [{"payer": "Ann", "payee": "Cat", "chips": 5}]
        # N2 taken out: the tab counts EUR again, and N1's payment is marked at the night
        service.leave_out_night(group_id, n2, group(group_id).version, None)
        assert service.blocked_at(db.session.get(Night, n1)) == ()
        service.mark_paid(n1, "Dan", "Ann", 8, db.session.get(Night, n1).version, None)
        assert paid_events(n1) == [{"payer": "Dan", "payee": "Ann", "chips": 8}]


def test_a_nights_report_offers_no_mark_paid_or_pay_link_in_a_blocked_currency_and_refuses_a_form_made_before(app, client):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        service.set_handle(group_id, "Ann", "paypal", {"username": "AnnLee"}, group(group_id).version, None)
        night = db.session.get(Night, n1)
        key, players = night.keeper_key, f"/p/{night.viewer_key}/report"
    keeper = f"/k/{key}/report"
    # before: Dan pays Ann 8 chips × 0.25 = 2.00 EUR, with Mark paid and Ann's PayPal.Me link (the page kept so)
    for url in (keeper, keeper):
        html = client.get(url).get_data(as_text=True)
        assert "Mark paid" in html and "https://paypal.me/AnnLee/2.00EUR" in html
    asked = client.get(f"{keeper}?payer=Dan&payee=Ann&chips=8").get_data(as_text=True)
    fields = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', re.search(r'id="confirm">(.*?)</form>', asked, re.S)[1]))
    with app.app_context():  # N2 gets a record the tab cannot count: neither N1's version nor the group's moves
        append_one_sided_record(n2)
    sentence = ("Nothing can be marked paid in EUR while N2 holds tab records the group cannot count, so a payment "
                "marked in EUR could be a wrong one: the group's organiser can take that night out of the group.")
    for url in (keeper, players):
        html = " ".join(unescape(client.get(url).get_data(as_text=True)).split())
        assert 'data-payer="Dan" data-payee="Ann" data-chips="8"' in html  # the payment is still said
        assert "Mark paid" not in html and "paypal.me" not in html and "pay-offers" not in html, url
        assert sentence in html, url
    asked = " ".join(unescape(client.get(f"{keeper}?payer=Dan&payee=Ann&chips=8").get_data(as_text=True)).split())
    assert 'id="confirm"' not in asked and "That payment cannot be marked paid: nothing can be marked paid in EUR" in asked
    # the confirming form made before the block: refused, with the reason, nothing recorded
    response = client.post(f"/k/{key}/paid", data=fields)
    assert response.status_code == 422
    assert "nothing can be marked paid in EUR while N2 holds tab records" in unescape(response.get_data(as_text=True))
    with app.app_context():
        assert paid_events(n1) == []
