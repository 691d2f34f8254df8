"""A group stored: its nights, members, handles and tab through the service, every figure worked by hand.

The nights N1, N2, N3 and the group "Fridays" of them are :mod:`service.group_support`'s (its
doc works out each night's net, money and plan).
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal as D

import pytest
from sqlalchemy import func, select

from companion import service
from companion.db.models import Event, Group, GroupNight, GroupRecord, Night
from companion.extensions import db
from companion.group.members import MemberError
from companion.group.pay_links import Iban, PayPalMe
from companion.group.season import Period
from companion.group.tab import Overpayment, TabPayment
from companion.night.file import Money
from service.group_support import CHIPS, group, group_of_three, played_night, poker, tab_events, versions

KEY = "k" * 43
OTHER_KEY = "o" * 43


def test_a_group_of_nights_with_different_chip_values_adds_up_its_season_and_its_tab(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        view = service.group_view(group(group_id))
        assert (view.version, view.name, view.members.names) == (7, "Fridays", ("Ann", "Ben", "Dan", "Cat"))
        assert [(k.night_id, k.name, k.date) for k in view.nights] == [
            (n1, "N1", datetime.date(2025, 1, 10)), (n2, "N2", datetime.date(2025, 2, 14)), (n3, "N3", datetime.date(2025, 2, 21))
        ]
        assert view.in_play == ()
        ann, ben, dan, cat = view.season.rows
        # Ann: +8 at 0.25 (2.00), 0 at 0.10, −5 chips only → chips 3, EUR 2.00, chips only −5, 3 nights
        assert (ann.nights_played, ann.total.chips, dict(ann.total.money), ann.total.chips_only) == (3, 3, {"EUR": D("2.00")}, -5)
        # Ben: 0 and +30 at 0.10 (3.00) → chips 30, EUR 3.00
        assert (ben.nights_played, ben.total.chips, dict(ben.total.money)) == (2, 30, {"EUR": D("3.00")})
        # Dan: −8 at 0.25 (−2.00), −20 at 0.10 (−2.00) → chips −28, EUR −4.00
        assert (dan.nights_played, dan.total.chips, dict(dan.total.money)) == (2, -28, {"EUR": D("-4.00")})
        # Cat: −10 at 0.10 (−1.00), +5 chips only
        assert (cat.nights_played, cat.total.chips, dict(cat.total.money), cat.total.chips_only) == (2, -5, {"EUR": D("-1.00")}, 5)
        # the tab: EUR Ann +2.00, Ben +3.00, Cat −1.00, Dan −2.00 − 2.00 = −4.00; chips: Ann −5, Cat +5
        assert dict(view.tab.balances["EUR"]) == {"Ann": D("2.00"), "Ben": D("3.00"), "Dan": D("-4.00"), "Cat": D("-1.00")}
        assert dict(view.tab.balances[None]) == {"Ann": D(-5), "Cat": D(5)}
        # no two balances of the four sum to zero: three payments at the fewest
        assert len(view.tab.plan["EUR"]) == 3
        assert view.tab.plan[None] == (TabPayment("Ann", "Cat", None, D(5)),)
        # the years and months with nights, newest first
        assert view.periods == (Period.year(2025), Period.month(2025, 2), Period.month(2025, 1))
        february = service.group_view(group(group_id), Period.month(2025, 2)).season
        # February: N2 and N3 only: Ann 0 and −5; Dan −20 (−2.00)
        assert (february.row("Ann").nights_played, february.row("Ann").total.chips) == (2, -5)
        assert dict(february.row("Dan").total.money) == {"EUR": D("-2.00")}


def test_a_rivalry_is_what_passed_between_two_members(app):
    with app.app_context():
        group_id, _ = group_of_three()
        rivalry = service.rivalry_view(group(group_id), "Ann", "dan")
        # N1 only: Dan's 8 chips went to Ann (0.25 each: 2.00); N2: nothing passed between them
        assert [(n.title, n.chips, n.money) for n in rivalry.nights] == [("N1", 8, D("2.00"))]


def test_keep_night_refuses_a_name_no_member_goes_by_and_takes_it_with_add_new(app):
    with app.app_context():
        group_id, _ = group_of_three()
        n4 = played_night("N4", {"Ann": 60, "Eve": 40}, CHIPS, datetime.date(2025, 3, 7))
        with pytest.raises(service.UnknownPlayers) as refused:
            service.keep_night(group_id, n4.id, 7, None)
        assert refused.value.names == ("Eve",) and "'Eve'" in str(refused.value) and "Ann, Ben, Dan, Cat" in str(refused.value)
        assert group(group_id).version == 7  # nothing written
        recorded = service.keep_night(group_id, n4.id, 7, KEY, add_new=("Eve",))
        # two records: Eve added, N4 kept
        assert (recorded.version, recorded.repeated) == (9, False)
        view = service.group_view(group(group_id))
        assert view.members.names == ("Ann", "Ben", "Dan", "Cat", "Eve")
        assert view.season.row("Eve").total.chips_only == -10


def test_a_night_already_in_a_group_is_refused(app):
    with app.app_context():
        group_id, (n1, _, _) = group_of_three()
        with pytest.raises(service.IllegalAction, match="already kept"):
            service.keep_night(group_id, n1, 7, None)
        other = service.open_group("Saturdays")
        with pytest.raises(service.IllegalAction, match="already kept"):
            service.keep_night(other.id, n1, 0, None)
        with pytest.raises(service.IllegalAction, match="already kept"):
            service.open_group("Sundays", from_night=db.session.get(Night, n1))
        assert db.session.scalar(select(func.count()).select_from(GroupNight)) == 3
        assert db.session.scalar(select(func.count()).select_from(Group)) == 2  # Sundays was not opened


def test_merging_two_names_of_one_person_counts_their_nights_together(app):
    with app.app_context():
        group_id, _ = group_of_three()
        n4 = played_night("N4", {"Ann": 60, "Danny": 40}, CHIPS, datetime.date(2025, 3, 7))
        service.keep_night(group_id, n4.id, 7, None, add_new=("Danny",))
        # Dan and Ben both played N1: they cannot be one person
        with pytest.raises(MemberError, match="both played"):
            service.merge_members(group_id, "Dan", "Ben", 9, None)
        recorded = service.merge_members(group_id, "dan", "DANNY", 9, None)
        assert recorded.version == 10
        view = service.group_view(group(group_id))
        assert view.members.names == ("Ann", "Ben", "Dan", "Cat")
        # Dan: N1 −8, N2 −20, and Danny's N4 −10 chips only
        assert (view.season.row("Dan").nights_played, view.season.row("Dan").total.chips_only) == (3, -10)
        service.rename_member(group_id, "Dan", "Daniel", 10, None)
        view = service.group_view(group(group_id))
        assert view.members.names == ("Ann", "Ben", "Daniel", "Cat") and view.season.row("Daniel").nights_played == 3


def test_a_tab_payment_clears_the_payers_oldest_nights_first(app):
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        before = versions([n1, n2, n3])
        recorded = service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 7, KEY)
        assert (recorded.version, recorded.repeated) == (8, False)
        ref = "Fridays · tab #8"
        # Dan owes 2.00 on N1 (the oldest) and 2.00 on N2: 2.00 clears N1, the other 1.00 part of N2;
        # Ben is owed 3.00 on N2 alone: all of it; no member is left with balances of both signs
        assert tab_events(n1) == [{"player": "Dan", "amount": "2.00", "payer": "Dan", "payee": "Ben", "ref": ref}]
        assert tab_events(n2) == [
            {"player": "Dan", "amount": "1.00", "payer": "Dan", "payee": "Ben", "ref": ref},
            {"player": "Ben", "amount": "-3.00", "payer": "Dan", "payee": "Ben", "ref": ref},
        ]
        assert versions([n1, n2, n3]) == [before[0] + 1, before[1] + 2, before[2]]
        (paid,) = db.session.scalars(select(GroupRecord).where(GroupRecord.kind == "tab_paid"))
        assert paid.payload == {"payer": "Dan", "payee": "Ben", "amount": "3.00", "unit": "EUR", "ref": ref, "confirmed_by": "organiser"}
        view = service.group_view(group(group_id))
        # left: Ann +2.00 (N1), Cat −1.00 (N2), Dan −1.00 (N2)
        assert dict(view.tab.balances["EUR"]) == {"Ann": D("2.00"), "Dan": D("-1.00"), "Cat": D("-1.00")}
        assert view.tab.plan["EUR"] == (TabPayment("Cat", "Ann", "EUR", D("1.00")), TabPayment("Dan", "Ann", "EUR", D("1.00")))
        # a part payment ("I got it" from Ann): Cat pays 0.50 of her 1.00 on N2; Ann's N1 credit goes down by it
        service.pay_tab(group_id, [TabPayment("Cat", "Ann", "EUR", D("0.50"))], 8, None, confirmed_by="ann")
        assert tab_events(n1)[-1] == {"player": "Ann", "amount": "-0.50", "payer": "Cat", "payee": "Ann", "ref": "Fridays · tab #9"}
        assert tab_events(n2)[-1] == {"player": "Cat", "amount": "0.50", "payer": "Cat", "payee": "Ann", "ref": "Fridays · tab #9"}
        view = service.group_view(group(group_id))
        assert dict(view.tab.balances["EUR"]) == {"Ann": D("1.50"), "Dan": D("-1.00"), "Cat": D("-0.50")}


def test_an_overpayment_or_a_stale_version_writes_nothing(app):
    with app.app_context():
        group_id, nights = group_of_three()
        before = versions(nights)
        # Ann is owed 2.00 in EUR: Dan cannot pay her 3.00 through the tab
        with pytest.raises(Overpayment, match="Ann is owed only 2.00 EUR: less than the 3.00 EUR paid"):
            service.pay_tab(group_id, [TabPayment("Dan", "Ann", "EUR", D("3.00"))], 7, KEY)
        # the first of two payments can be made, the second cannot: neither is
        with pytest.raises(Overpayment):
            service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00")), TabPayment("Cat", "Ben", "EUR", D("0.50"))], 7, KEY)
        with pytest.raises(service.StaleTable):
            service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 6, None)
        with pytest.raises(service.IllegalAction, match="only that they got a payment to them"):
            service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 7, None, confirmed_by="Ann")
        assert group(group_id).version == 7 and versions(nights) == before
        assert db.session.scalar(select(func.count()).select_from(Event).where(Event.kind == "tab_cleared")) == 0


def test_a_doubled_request_key_records_once(app):
    with app.app_context():
        group_id, nights = group_of_three()
        payment = [TabPayment("Dan", "Ben", "EUR", D("3.00"))]
        first = service.pay_tab(group_id, payment, 7, KEY)
        again = service.pay_tab(group_id, payment, 7, KEY)
        assert (again.version, again.repeated) == (first.version, True)
        assert group(group_id).version == 8 and len(tab_events(nights[1])) == 2
        with pytest.raises(service.KeyConflict):
            service.pay_tab(group_id, [TabPayment("Cat", "Ben", "EUR", D("1.00"))], 8, KEY)
        added = service.add_member(group_id, "Eve", 8, OTHER_KEY)
        assert service.add_member(group_id, "Eve", 8, OTHER_KEY) == service.GroupRecorded(added.version, added.summary, True)
        assert group(group_id).version == 9


def test_open_group_with_the_same_request_key_is_one_group(app):
    with app.app_context():
        first = service.open_group("Fridays", KEY)
        assert service.open_group("Fridays", KEY).id == first.id
        with pytest.raises(service.KeyConflict):
            service.open_group("Saturdays", KEY)
        with pytest.raises(service.GROUP_REFUSALS):
            service.open_group("   ")
        assert db.session.scalar(select(func.count()).select_from(Group)) == 1


def test_the_links_find_the_group_and_rotating_one_retires_it(app):
    with app.app_context():
        opened = service.open_group("Fridays")
        organiser, members = opened.organiser_key, opened.member_key
        assert service.group_for_organiser(organiser).id == opened.id and service.group_for_member(members).id == opened.id
        assert service.group_for_organiser(members) is None and service.group_for_member(organiser) is None
        service.rotate_group_link(group(opened.id), "members")
        assert service.group_for_member(members) is None and service.group_for_organiser(organiser).id == opened.id
        service.rotate_group_link(group(opened.id), "organiser")
        assert service.group_for_organiser(organiser) is None
        with pytest.raises(service.IllegalAction):
            service.rotate_group_link(group(opened.id), "keeper")


def test_handles_are_set_read_and_follow_their_member_onto_a_nights_seats(app):
    with app.app_context():
        group_id, (n1, _, _) = group_of_three()
        service.set_handle(group_id, "Ann", "paypal", {"username": "@AnnLee"}, 7, None)
        service.set_handle(group_id, "ann", "iban", {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Ann Lee", "bic": ""}, 8, None)
        with pytest.raises(service.GROUP_REFUSALS):
            service.set_handle(group_id, "Ben", "iban", {"iban": "DE89 3704 0044 0532 0130 01", "holder": "Ben"}, 9, None)
        assert service.group_view(group(group_id)).handles == {
            "Ann": {"paypal": PayPalMe("AnnLee"), "iban": Iban("DE89370400440532013000", "Ann Lee")}
        }
        assert dict(service.handles_for_night(db.session.get(Night, n1))) == {
            "Ann": {"paypal": PayPalMe("AnnLee"), "iban": Iban("DE89370400440532013000", "Ann Lee")}
        }
        service.remove_handle(group_id, "Ann", "paypal", 9, None)
        with pytest.raises(service.IllegalAction, match="gives no paypal"):
            service.remove_handle(group_id, "Ann", "paypal", 10, None)
        service.rename_member(group_id, "Ann", "Annie", 10, None)
        assert service.group_view(group(group_id)).handles == {"Annie": {"iban": Iban("DE89370400440532013000", "Ann Lee")}}
        assert service.group_of_night(db.session.get(Night, n1)).id == group_id


def test_the_next_night_seats_the_last_nights_players_and_passes_the_deal_one_seat_on(app):
    with app.app_context():
        group_id, _ = group_of_three()
        defaults = service.next_night_defaults(group(group_id))
        # N3 (the last kept): Ann and Cat, Ann dealt first → Cat deals first; chips only; Poker
        assert (defaults.players, defaults.first_dealer, defaults.chip_value, defaults.currency, defaults.kind) == (
            ("Ann", "Cat"), "Cat", D(0), "", "betting"
        )
        night = service.open_night_in_group(
            group_id, "N5", list(defaults.players), Money(defaults.chip_value, defaults.currency),
            {"kind": defaults.kind, "players": None, "first_dealer": defaults.first_dealer, "rules": dict(defaults.rules)}, KEY,
        )
        assert service.group_of_night(night).id == group_id and group(group_id).version == 8
        view = service.group_view(group(group_id))
        assert [(p.name, p.reason) for p in view.in_play] == [("N5", "nothing is recorded yet")]
        # a name no member goes by: neither the night nor the record is written
        with pytest.raises(service.UnknownPlayers):
            service.open_night_in_group(group_id, "N6", ["Ann", "Zoe"], CHIPS, poker("Ann"))
        assert db.session.scalar(select(func.count()).select_from(Night)) == 4 and group(group_id).version == 8


def test_export_then_import_gives_the_same_group(app):
    with app.app_context():
        group_id, _ = group_of_three()
        service.set_handle(group_id, "Ann", "paypal", {"username": "AnnLee"}, 7, None)
        service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 8, None)
        exported = service.export_group(group(group_id))
        document = json.loads(exported)
        assert [n["date"] for n in document["nights"]] == ["2025-01-10", "2025-02-14", "2025-02-21"]
        # the tab's records against N2, as worked out in the test above
        assert document["nights"][1]["cleared"] == [
            {"member": "Dan", "amount": "1.00", "from": "Dan", "to": "Ben"},
            {"member": "Ben", "amount": "-3.00", "from": "Dan", "to": "Ben"},
        ]
        copy = service.import_group(exported, KEY)
        assert service.import_group(exported, KEY).id == copy.id  # a doubled upload imports once
        assert copy.id != group_id and service.export_group(group(copy.id)) == exported
        view = service.group_view(group(copy.id))
        assert dict(view.tab.balances["EUR"]) == {"Ann": D("2.00"), "Dan": D("-1.00"), "Cat": D("-1.00")}
        # a refused file stores nothing
        with pytest.raises(service.GROUP_REFUSALS):
            service.import_group(exported.replace('"Fridays"', '""'))
        assert db.session.scalar(select(func.count()).select_from(Group)) == 2


def test_a_nights_result_is_built_once_per_version(app, monkeypatch):
    from companion.service import group_nights

    built: list[str] = []
    real = group_nights.result_of_report
    monkeypatch.setattr(group_nights, "result_of_report", lambda report, **kw: built.append(kw["title"]) or real(report, **kw))
    with app.app_context():
        group_id, _ = group_of_three()
        service.group_view(group(group_id))
        service.group_view(group(group_id))
        assert built == ["N1", "N2", "N3"]  # the second view found all three kept
        service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 7, None)
        built.clear()
        service.group_view(group(group_id))
        assert built == ["N1", "N2"]  # the nights the payment moved on; N3 is as it was


def test_a_groups_view_is_kept_per_version_and_made_anew_when_a_night_moves_on(app, monkeypatch):
    from companion.service import group_views

    made: list[str] = []
    real = group_views.season
    monkeypatch.setattr(group_views, "season", lambda nights, members, period: made.append(period.label) or real(nights, members, period))
    with app.app_context():
        group_id, (n1, _, _) = group_of_three()
        first = service.group_view(group(group_id))
        assert service.group_view(group(group_id)) is first and made == ["all time"]  # kept: nothing counted again
        service.group_view(group(group_id), Period.month(2025, 2))
        assert made == ["all time", "February 2025"]  # another period is another view
        # a night of the group moves on without a group command (N1's plan, Dan pays Ann 8 chips,
        # marked paid at the night): the group's version is the same, its view is not
        service.mark_paid(n1, "Dan", "Ann", 8, versions([n1])[0])
        again = service.group_view(group(group_id))
        assert again is not first and made[-1] == "all time"
        # the tab in EUR without N1's 2.00: Ann 0, Ben +3.00, Cat -1.00, Dan -2.00
        assert dict(again.tab.balances["EUR"]) == {"Ben": D("3.00"), "Dan": D("-2.00"), "Cat": D("-1.00")}
        # a group command moves the version on: the view is made anew
        made.clear()
        service.add_member(group_id, "Eve", 7, None)
        assert service.group_view(group(group_id)).members.names[-1] == "Eve" and made == ["all time"]
