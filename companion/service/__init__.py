"""The service layer: the only writer to the database, every command through one unit of work.

The web layer and the command line call the service through this package alone
(``from companion import service``): what they may ask of it is listed here.  Behind it,
one module per job, each importing only those listed before it:

* :mod:`~companion.service.rows`: the stored rows a page reads, named for the web layer;
* :mod:`~companion.service.lru` and :mod:`~companion.service.store`: a night's fold, kept per
  process, and what is derived from it per version;
* :mod:`~companion.service.night_ledger`: the night's own ledger (the bank, the Bonus Round,
  what it settles on) as read from the log;
* :mod:`~companion.service.history`: what the night's history says of each event;
* :mod:`~companion.service.uow`: the unit of work (the write transaction, the version's
  compare-and-set, the request keys, the one commit, and the watch that hears of each commit);
* :mod:`~companion.service.connection`: a request's hold on the database (letting go of it), and
  whether the database answers with room to write;
* :mod:`~companion.service.housekeeping`: what a request keeps besides the nights (a refused form
  to show again, a client's count against a brake), each in a short transaction of its own, and
  read back (the brakes' :class:`Limit`, counted by the service alone);
* :mod:`~companion.service.night_reads`: a night's row as a page finds it (by a link, by its id, read
  again after a refused write), when its last record was made, its links for the warm-up;
* :mod:`~companion.service.nights`: open, import, export, replace the links, carry the pot on;
* :mod:`~companion.service.keepers`: the night's keeper phones, each with a link of its own;
* :mod:`~companion.service.night_report`: a night's report at its version, the one reading of a
  night that its pages and its group share;
* :mod:`~companion.service.bank`: the bank and the Bonus Round's commands;
* :mod:`~companion.service.night_games`: start, take back and set up the night's games;
* :mod:`~companion.service.group_nights`: a stored night as the group sees it, kept per version;
* :mod:`~companion.service.group_records`: a group as stored, read back: its records folded
  (members, pay handles, the nights taken out) and its kept nights in order;
* :mod:`~companion.service.group_views`: what a group's pages show (its view, its stamps), and what
  a night kept in a group shows of it (its members' handles, a unit the tab cannot settle);
* :mod:`~companion.service.recording`: a game's action, a payment marked paid;
* :mod:`~companion.service.group_keeping`: the nights a group keeps: keep, take out, put back,
  start one in the group, the next night's defaults;
* :mod:`~companion.service.group_links`: open a group, and its links (the organiser's, the
  members', each member's own);
* :mod:`~companion.service.group_members`: its members and their pay handles;
* :mod:`~companion.service.group_tab`: payments through its tab;
* :mod:`~companion.service.group_file`: its group file, written out and read in.
"""

from companion.games import IllegalAction
from companion.games.night_kinds import GAME_STARTED
from companion.group.season import ALL_TIME, Period
from companion.group.tab import Overpayment, TabPayment, read_payment
from companion.service.connection import database_health, is_disk_full, let_go, let_go_after_error
from companion.service.group_file import export_group, import_group
from companion.service.rows import GroupRow, NightRow
from companion.service.group_keeping import (
    NextNightDefaults,
    UnknownPlayers,
    keep_night,
    leave_out_night,
    next_night_defaults,
    open_night_in_group,
    put_back_night,
)
from companion.service.group_links import (
    group_for_member,
    group_for_member_link,
    group_for_organiser,
    make_member_link,
    member_links,
    open_group,
    rotate_group_link,
)
from companion.service.group_members import add_member, merge_members, remove_handle, rename_member, set_handle
from companion.service.group_records import GROUP_REFUSALS, HANDLE_KINDS, recorded_in_group
from companion.service.group_tab import pay_tab
from companion.service.group_views import (
    GroupView,
    KeptNight,
    NightInPlay,
    NightPay,
    blocked_at,
    group_of_night,
    group_stamp,
    group_stamp_by_link,
    group_stamps,
    group_view,
    handles_for_night,
    night_pay,
    rivalry_view,
)
from companion.service.history import describe_ledger_event, event_for_key, recorded_since
from companion.service.housekeeping import Limit, count_against, keep_refusal, kept_refusal, retry_after
from companion.service.night_games import next_game_defaults, start_game, take_back_game, update_setup
from companion.service.nights import (
    carried_from_of,
    carry_pot,
    continuation_of,
    display_key_of,
    export_history,
    import_history,
    listed_nights,
    next_night_of,
    new_display_link,
    nights_by_id,
    night_stamp_by_link,
    night_stamps,
    open_night,
    rotate_link,
    take_back_display_link,
    viewer_keys_of,
)
from companion.service.keepers import (
    FIRST_PHONE,
    Keepers,
    Phone,
    PhoneLink,
    keepers_of,
    keepers_of_nights,
    make_keeper_link,
    on_night_read,
    phone_link_of,
    read_keeper_key_as,
    read_phone_name,
    recorded_by_words,
    recorders_of,
    replace_phone_link,
    take_back_keeper_link,
)
from companion.service.night_reads import (
    display_link_of,
    links_for_warm_up,
    night_again,
    night_by_id,
    night_by_link,
    since_last_record,
)
from companion.service.night_report import report_of
from companion.service.recording import mark_paid, record
from companion.service.store import (
    cache_weight,
    clear_cache,
    configure_cache,
    derived,
    derived_before,
    events_after,
    events_of,
    keep_derived,
    money_of,
    play_for,
    played_games,
    games_of_the_night,
    table_for,
    warm_up,
)
from companion.service.uow import (
    GroupRecorded,
    KeyConflict,
    Recorded,
    StaleTable,
    end_reads,
    new_key,
    new_keys,
    watch_commits,
)

__all__ = [
    "count_against",
    "database_health",
    "end_reads",
    "is_disk_full",
    "keep_refusal",
    "kept_refusal",
    "let_go",
    "let_go_after_error",
    "Limit",
    "recorded_in_group",
    "retry_after",
    "viewer_keys_of",
    "watch_commits",
    "add_member",
    "ALL_TIME",
    "cache_weight",
    "carried_from_of",
    "carry_pot",
    "clear_cache",
    "configure_cache",
    "continuation_of",
    "derived",
    "derived_before",
    "describe_ledger_event",
    "event_for_key",
    "events_after",
    "events_of",
    "export_group",
    "export_history",
    "GAME_STARTED",
    "group_for_member",
    "group_for_member_link",
    "group_for_organiser",
    "group_of_night",
    "group_stamp",
    "group_stamp_by_link",
    "group_stamps",
    "GROUP_REFUSALS",
    "group_view",
    "GroupRecorded",
    "GroupView",
    "HANDLE_KINDS",
    "handles_for_night",
    "blocked_at",
    "night_pay",
    "NightPay",
    "IllegalAction",
    "import_group",
    "import_history",
    "keep_derived",
    "FIRST_PHONE",
    "Keepers",
    "keepers_of",
    "keepers_of_nights",
    "make_keeper_link",
    "Phone",
    "read_phone_name",
    "recorded_by_words",
    "recorded_since",
    "recorders_of",
    "replace_phone_link",
    "take_back_keeper_link",
    "keep_night",
    "leave_out_night",
    "make_member_link",
    "member_links",
    "KeptNight",
    "GroupRow",
    "NightRow",
    "KeyConflict",
    "mark_paid",
    "merge_members",
    "money_of",
    "new_key",
    "new_keys",
    "next_game_defaults",
    "next_night_defaults",
    "listed_nights",
    "nights_by_id",
    "next_night_of",
    "display_key_of",
    "new_display_link",
    "night_stamp_by_link",
    "night_stamps",
    "NextNightDefaults",
    "NightInPlay",
    "open_group",
    "open_night",
    "open_night_in_group",
    "Overpayment",
    "pay_tab",
    "put_back_night",
    "Period",
    "play_for",
    "played_games",
    "games_of_the_night",
    "record",
    "report_of",
    "read_payment",
    "Recorded",
    "remove_handle",
    "rename_member",
    "rivalry_view",
    "rotate_group_link",
    "rotate_link",
    "take_back_display_link",
    "set_handle",
    "StaleTable",
    "start_game",
    "table_for",
    "TabPayment",
    "take_back_game",
    "UnknownPlayers",
    "update_setup",
    "warm_up",
    # a night's row as a page finds it, and a keeper phone's link on it
    "display_link_of",
    "links_for_warm_up",
    "night_again",
    "night_by_id",
    "night_by_link",
    "on_night_read",
    "phone_link_of",
    "PhoneLink",
    "read_keeper_key_as",
    "since_last_record",
]
