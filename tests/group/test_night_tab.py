"""What the group's tab has cleared of a night travels with the night: its ``tab_cleared`` events fill the
night's ``cleared`` (tests/night/test_tab.py's ON_COUNTS: Ann -20, Bob -10, Cat +30 at 0.25 EUR)."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal as D

from companion.group import file as groupfile
from companion.group.members import Added, members_from
from companion.group.nights import Cleared
from companion.group.result import night_result
from companion.group.tab import TabPayment, pay, tab
from companion.night import file as nightfile
from night.test_tab import ON_COUNTS

DAY = datetime.date(2025, 3, 7)
MEMBERS = members_from([Added("Ann"), Added("Bob"), Added("Cat")])


def copy(document):  # type: ignore[no-untyped-def]
    return json.loads(json.dumps(document))


def test_a_nights_tab_records_are_its_cleared_records_and_the_tab_counts_them():
    night = night_result(nightfile.from_dict(copy(ON_COUNTS)), night_id="7", date=DAY, title="Friday")
    # the file's two records: Ann paid Cat 5.00 through the tab
    assert night.cleared == (Cleared("7", "Ann", D("5.00"), "Ann", "Cat"), Cleared("7", "Cat", D("-5.00"), "Ann", "Cat"))
    # what remains for the tab: Bob owes Cat 2.50 (10 chips at 0.25), nothing of Ann's
    left = tab([night], MEMBERS)
    assert dict(left.balances["EUR"]) == {"Bob": D("-2.50"), "Cat": D("2.50")}
    # and the tab's next payment writes what the night's own report will read back
    records = pay([night], MEMBERS, [TabPayment("Bob", "Cat", "EUR", D("1.10"))])
    assert records == (Cleared("7", "Bob", D("1.10"), "Bob", "Cat"), Cleared("7", "Cat", D("-1.10"), "Bob", "Cat"))


def test_a_group_file_holds_a_nights_own_tab_records_inside_the_night_and_writes_them_once():
    document = {
        "format": "companion-group/1", "name": "Friday poker",
        "members": [{"added": "Ann"}, {"added": "Bob"}, {"added": "Cat"}],
        "nights": [{
            "date": "2025-03-07", "night": copy(ON_COUNTS),
            # a later record of the group's, beside the night's own: Bob pays Cat 1.10
            "cleared": [{"member": "Bob", "amount": "1.10", "from": "Bob", "to": "Cat"},
                        {"member": "Cat", "amount": "-1.10", "from": "Bob", "to": "Cat"}],
        }],
    }
    group = groupfile.from_dict(copy(document))
    # the night's two, then the entry's two: Bob -2.50 + 1.10 = -1.40, Cat +7.50 - 5.00 - 1.10 = +1.40
    assert [c.amount for c in group.nights[0].cleared] == [D("5.00"), D("-5.00"), D("1.10"), D("-1.10")]
    assert dict(tab(group.results, group.members).balances["EUR"]) == {"Bob": D("-1.40"), "Cat": D("1.40")}
    written = groupfile.to_dict(group)
    assert written["nights"][0]["night"]["tab_cleared"] == ON_COUNTS["tab_cleared"]
    assert written["nights"][0]["cleared"] == document["nights"][0]["cleared"]
    again = groupfile.from_dict(copy(written))
    assert again.nights[0].cleared == group.nights[0].cleared


def test_a_group_files_record_past_what_the_night_still_owes_after_its_own_records_is_refused():
    document = {
        "format": "companion-group/1", "name": "Friday poker",
        "members": [{"added": "Ann"}, {"added": "Bob"}, {"added": "Cat"}],
        "nights": [{"date": "2025-03-07", "night": copy(ON_COUNTS),
                    "cleared": [{"member": "Ann", "amount": "1.00", "from": "Ann", "to": "Cat"}]}],
    }
    try:
        groupfile.from_dict(document)
    except groupfile.GroupFileError as error:
        # Ann's -5.00 was cleared by the night's own record: 1.00 more would take her past zero
        assert "nights[0].cleared[0].amount: Ann's balance on this night is 0.00" in str(error)
    else:  # pragma: no cover
        raise AssertionError("refused")
