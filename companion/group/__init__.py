"""A group of players across nights, pure: its members, its season, its running tab, its pay links.

A home game meets every week or month; no single night can say who is up over the season or who
still owes whom from the nights nobody settled.  This layer answers that from plain values a
service builds out of stored nights (issue 25), one module per job, each importing only the ones
before it: :mod:`.members` (who the group is, and which night's name is which member),
:mod:`.nights` (one night as the group sees it, as frozen values), :mod:`.season` (the season
table and rivalries), :mod:`.tab` (what is
still owed across nights, and one plan to settle it), :mod:`.pay_links` (how a member likes to be
paid: a link with the amount filled in, or an EPC069-12 SEPA transfer's QR payload); then
:mod:`.result` (a night as the group sees it, made from a night file and its report),
:mod:`.file` (the group file, ``companion-group/1``) and :mod:`.replay` (what ``flask replay``
prints of one).

Pure: no Flask, no database; it reads nights only through the report's values and never names a
game.  See docs/group.md and docs/group-file.md.
"""
